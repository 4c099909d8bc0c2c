//! `throng inspect`'s materials and textures: each material's factors and
//! its textures by slot (image, wrap, UV transform), and each image's
//! size, content, codec, mip levels and bytes, in the file and on the GPU
//! (a glTF's: what a default bake stores). Shared by the `.throng` and glTF
//! summaries.

use serde_json::{Value, json};
use throng_bake::images::contents;
use throng_bake::scene::SourceImage;
use throng_core::material::{Image, ImageContent, Material, TextureSlot, TextureWrap};
use throng_core::texture_codec::{DEFAULT_IMAGE_CODEC, TextureCodec, mip_levels};

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

/// A baked model's images as JSON: size, what the texels are, codec and
/// mip levels, the bytes in the file, and on the GPU those bytes where the
/// adapter samples BC blocks (`gpu_bytes`) or every level decoded to RGBA8
/// where it does not (`gpu_bytes_decoded`).
pub fn images_json(images: &[Image]) -> Value {
    images
        .iter()
        .map(|img| image_json(&img.name, img.width, img.height, img.content, img.codec))
        .collect()
}

/// A glTF's images as JSON: the size decoded, and what a default bake
/// stores (what the materials use it as, the codec, the bytes of its mip
/// chain).
pub fn source_images_json(images: &[SourceImage], materials: &[Material]) -> Value {
    images
        .iter()
        .zip(contents(images.len(), materials))
        .map(|(img, content)| {
            let codec = DEFAULT_IMAGE_CODEC.for_size(img.width, img.height);
            image_json(&img.name, img.width, img.height, content, codec)
        })
        .collect()
}

/// One image's entry: a `width` × `height` image with its full mip chain
/// stored in `codec` (a validated model's images have exactly that).
fn image_json(
    name: &str,
    width: u32,
    height: u32,
    content: ImageContent,
    codec: TextureCodec,
) -> Value {
    let bytes = codec.chain_bytes(width, height);
    json!({
        "name": name,
        "width": width,
        "height": height,
        "content": content.name(),
        "codec": codec.name(),
        "levels": mip_levels(width, height),
        "bytes": bytes,
        "gpu_bytes": bytes,
        "gpu_bytes_decoded": TextureCodec::Rgba8.chain_bytes(width, height),
    })
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
            "    {i:>3}  {:24} {}×{} {} {}, {} mip levels, {} in the file and on the GPU ({} where BC is decoded)",
            img["name"].as_str().unwrap_or(""),
            img["width"],
            img["height"],
            img["content"].as_str().unwrap_or("?"),
            img["codec"].as_str().unwrap_or("?"),
            img["levels"],
            bytes(img["bytes"].as_u64().unwrap_or(0)),
            bytes(img["gpu_bytes_decoded"].as_u64().unwrap_or(0))
        );
    }
}
