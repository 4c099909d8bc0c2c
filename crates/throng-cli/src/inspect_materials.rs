//! `throng inspect`'s materials and textures: each material's factors and
//! its textures by slot (image, wrap, UV transform), and each image's
//! size, encoding and bytes, in the file and decoded on the GPU with its
//! mip chain. Shared by the `.throng` and glTF summaries.

use serde_json::{Value, json};
use throng_core::material::{Image, Material, TextureSlot, TextureWrap};

use crate::util::bytes;

/// The materials as JSON.
pub fn materials_json(materials: &[Material]) -> Value {
    let wrap = |w: TextureWrap| match w {
        TextureWrap::Repeat => "repeat",
        TextureWrap::ClampToEdge => "clamp",
        TextureWrap::MirroredRepeat => "mirror",
    };
    materials
        .iter()
        .map(|m| {
            let textures: serde_json::Map<String, Value> = TextureSlot::ALL
                .into_iter()
                .filter_map(|slot| {
                    let t = m.texture(slot)?;
                    let transform = t.transform;
                    Some((
                        slot.name().to_owned(),
                        json!({
                            "image": t.image,
                            "wrap": [wrap(t.wrap[0]), wrap(t.wrap[1])],
                            "srgb": slot.is_srgb(),
                            "offset": transform.offset.to_array(),
                            "rotation": transform.rotation,
                            "scale": transform.scale.to_array(),
                        }),
                    ))
                })
                .collect();
            json!({
                "name": m.name,
                "base_color_factor": m.base_color_factor.to_array(),
                "metallic": m.metallic_factor,
                "roughness": m.roughness_factor,
                "normal_scale": m.normal_scale,
                "occlusion_strength": m.occlusion_strength,
                "emissive": m.emissive.to_array(),
                "alpha_mode": format!("{:?}", m.alpha_mode).to_lowercase(),
                "alpha_cutoff": m.alpha_cutoff,
                "double_sided": m.double_sided,
                "textures": textures,
            })
        })
        .collect()
}

/// The images as JSON: size from the encoded header (0 × 0 when it cannot
/// be read), and the bytes the GPU holds decoded with a full mip chain.
pub fn images_json(images: &[Image]) -> Value {
    images
        .iter()
        .map(|img| {
            let (w, h) = image::ImageReader::new(std::io::Cursor::new(&img.bytes))
                .with_guessed_format()
                .ok()
                .and_then(|r| r.into_dimensions().ok())
                .unwrap_or((0, 0));
            json!({
                "name": img.name,
                "mime": img.mime,
                "width": w,
                "height": h,
                "bytes": img.bytes.len(),
                "gpu_bytes": mip_chain_bytes(w, h),
            })
        })
        .collect()
}

/// Bytes of an RGBA8 image of `w` × `h` with every mip level.
fn mip_chain_bytes(w: u32, h: u32) -> u64 {
    let (mut w, mut h, mut total) = (w as u64, h as u64, 0);
    while w > 0 && h > 0 {
        total += 4 * w * h;
        if w == 1 && h == 1 {
            break;
        }
        (w, h) = ((w / 2).max(1), (h / 2).max(1));
    }
    total
}

/// The text lines of `v["materials"]` and `v["images"]`.
pub fn text(s: &mut String, v: &Value) {
    use std::fmt::Write;
    let arr = |x: &Value| x.as_array().cloned().unwrap_or_default();
    let f = |x: &Value| x.as_f64().unwrap_or(0.0);
    let materials = arr(&v["materials"]);
    let _ = writeln!(s, "  materials {}", materials.len());
    for (i, m) in materials.iter().enumerate() {
        let c = arr(&m["base_color_factor"]);
        let e = arr(&m["emissive"]);
        let _ = writeln!(
            s,
            "    {i:>3}  {:24} base ({:.2}, {:.2}, {:.2}, {:.2}), metallic {:.2}, roughness {:.2}, emissive ({:.2}, {:.2}, {:.2}), {}{}",
            m["name"].as_str().unwrap_or(""),
            f(&c[0]),
            f(&c[1]),
            f(&c[2]),
            f(&c[3]),
            f(&m["metallic"]),
            f(&m["roughness"]),
            f(&e[0]),
            f(&e[1]),
            f(&e[2]),
            m["alpha_mode"].as_str().unwrap_or(""),
            if m["double_sided"] == true {
                ", double-sided"
            } else {
                ""
            }
        );
        if let Some(textures) = m["textures"].as_object() {
            for (slot, t) in textures {
                let scale = arr(&t["scale"]);
                let offset = arr(&t["offset"]);
                let moved = f(&t["rotation"]) != 0.0
                    || [&scale[0], &scale[1]].iter().any(|x| f(x) != 1.0)
                    || [&offset[0], &offset[1]].iter().any(|x| f(x) != 0.0);
                let _ = writeln!(
                    s,
                    "           {slot:26} image {}, {}{}",
                    t["image"],
                    arr(&t["wrap"])
                        .iter()
                        .map(|w| w.as_str().unwrap_or("?"))
                        .collect::<Vec<_>>()
                        .join("/"),
                    if moved {
                        format!(
                            ", UV offset ({:.3}, {:.3}) rotation {:.3} scale ({:.3}, {:.3})",
                            f(&offset[0]),
                            f(&offset[1]),
                            f(&t["rotation"]),
                            f(&scale[0]),
                            f(&scale[1])
                        )
                    } else {
                        String::new()
                    }
                );
            }
        }
    }
    let images = arr(&v["images"]);
    let _ = writeln!(s, "  textures  {}", images.len());
    for (i, img) in images.iter().enumerate() {
        let _ = writeln!(
            s,
            "    {i:>3}  {:24} {}×{} {}, {} in the file, {} RGBA8 with mips on the GPU",
            img["name"].as_str().unwrap_or(""),
            img["width"],
            img["height"],
            img["mime"].as_str().unwrap_or("?"),
            bytes(img["bytes"].as_u64().unwrap_or(0)),
            bytes(img["gpu_bytes"].as_u64().unwrap_or(0))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mip_chains_add_up() {
        assert_eq!(mip_chain_bytes(1, 1), 4);
        assert_eq!(mip_chain_bytes(4, 4), 4 * (16 + 4 + 1));
        assert_eq!(mip_chain_bytes(4, 1), 4 * (4 + 2 + 1));
        assert_eq!(mip_chain_bytes(0, 0), 0);
    }
}
