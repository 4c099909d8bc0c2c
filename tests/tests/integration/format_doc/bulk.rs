//! The bulk sections (`VERT`, `INDX`, `TEXL`) viewed in place in an aligned
//! buffer, and the texels found with the doc's addressing and frame table
//! against the CPU pose evaluator.

use throng_bake::sample::PoseEvaluator;
use throng_bake::{BakeOptions, import_file};
use throng_core::format::{self, Directory, read_model, tags, write_model};
use throng_core::glam::Mat4;
use throng_core::model::{BakedModel, BakedVertex, TexelFormat, Texels};
use throng_tests::asset;

use super::{MODEL, bake, f32_at};

#[test]
fn bulk_sections_are_viewed_in_place_in_an_aligned_buffer() {
    for precision in [TexelFormat::F32, TexelFormat::F16] {
        let opts = BakeOptions {
            precision,
            ..BakeOptions::default()
        };
        let model = bake(MODEL, &opts);
        let bytes = write_model(&model).unwrap();
        let aligned = format::aligned_copy(&bytes);
        let buf: &[u8] = &bytemuck::cast_slice::<u128, u8>(&aligned)[..bytes.len()];
        assert_eq!(buf.as_ptr() as usize % 16, 0);
        let dir = Directory::parse(buf).unwrap();
        let start = |tag: [u8; 4]| buf[dir.entry(tag).unwrap().offset as usize..].as_ptr();

        let verts: &[BakedVertex] = dir.view(buf, tags::VERTICES).unwrap();
        assert!(std::ptr::eq(verts.as_ptr().cast(), start(tags::VERTICES)));
        let all_verts: Vec<BakedVertex> =
            model.lods.iter().flat_map(|l| l.vertices.clone()).collect();
        assert!(verts == all_verts.as_slice());

        let indices: &[u32] = dir.view(buf, tags::INDICES).unwrap();
        assert!(std::ptr::eq(indices.as_ptr().cast(), start(tags::INDICES)));
        let all_indices: Vec<u32> = model.lods.iter().flat_map(|l| l.indices.clone()).collect();
        assert_eq!(indices, all_indices.as_slice());

        let texel_bytes: &[u8] = match precision {
            TexelFormat::F32 => {
                bytemuck::cast_slice(dir.view::<[f32; 4]>(buf, tags::TEXELS).unwrap())
            }
            TexelFormat::F16 => {
                bytemuck::cast_slice(dir.view::<[u16; 4]>(buf, tags::TEXELS).unwrap())
            }
        };
        assert!(std::ptr::eq(texel_bytes.as_ptr(), start(tags::TEXELS)));
        assert_eq!(texel_bytes, model.texture.texels.as_bytes());

        // The same bytes one byte off alignment cannot be viewed, only read.
        let shifted = format::aligned_copy(&[&[0u8][..], &bytes].concat());
        let off: &[u8] = &bytemuck::cast_slice::<u128, u8>(&shifted)[1..][..bytes.len()];
        let dir = Directory::parse(off).unwrap();
        let err = dir.view::<BakedVertex>(off, tags::VERTICES).unwrap_err();
        assert!(
            err.to_string().contains("cannot be viewed in place"),
            "{err}"
        );
        assert!(read_model(off).unwrap() == model);
        println!(
            "{precision:?}: VERT, INDX and TEXL viewed in place; unaligned view refused: {err}"
        );
    }
}

/// Texel `r` of bone `b` at global frame `g`, located with the doc's formula
/// in a `W × W × layers` array filled from `TEXL` layer by layer, row by row.
fn texel_from_doc(model: &BakedModel, texl: &[[f32; 4]], g: u32, b: u32, r: u32) -> [f32; 4] {
    let w = model.texture.width as usize;
    let i = (g as usize * model.bones.len() + b as usize) * 3 + r as usize;
    let layer = i / (w * w);
    let y = (i % (w * w)) / w;
    let x = i % w;
    assert!(x < w && y < w && layer < model.texture.layers as usize);
    texl[layer * w * w + y * w + x]
}

/// Row `r` of a column-major matrix, as the doc stores it in a texel.
fn doc_row(m: &[f32; 16], r: usize) -> [f32; 4] {
    [m[r], m[4 + r], m[8 + r], m[12 + r]]
}

#[test]
fn texels_follow_the_documented_addressing_and_frame_table() {
    // Small layers so that the texture has several and clips cross layers.
    let opts = BakeOptions {
        max_layer_size: 8,
        ..BakeOptions::default()
    };
    let path = asset(MODEL);
    let scene = import_file(&path).unwrap().scene;
    let model = bake(MODEL, &opts);
    assert!(model.texture.layers > 1, "the test needs several layers");
    let bytes = write_model(&model).unwrap();
    let aligned = format::aligned_copy(&bytes);
    let buf: &[u8] = &bytemuck::cast_slice::<u128, u8>(&aligned)[..bytes.len()];
    let dir = Directory::parse(buf).unwrap();
    let texl: &[[f32; 4]] = dir.view(buf, tags::TEXELS).unwrap();
    let bones = dir.section(buf, tags::BONES).unwrap();
    let bone_count = model.bones.len();
    let frames = texl.len() / (bone_count * 3);
    assert_eq!(texl.len(), frames * bone_count * 3);
    let w2 = (model.texture.width * model.texture.width) as usize;
    let layers = model.texture.layers as usize;
    assert!(
        texl.len() <= w2 * layers && texl.len() > w2 * (layers - 1),
        "tight"
    );

    // BONE matrices read at their documented offsets.
    let matrix = |b: usize, at: usize| -> [f32; 16] {
        std::array::from_fn(|k| f32_at(bones, b * 144 + at + 4 * k))
    };
    let eval = PoseEvaluator::new(&scene);
    let mut checked = 0;
    for (b, bone) in model.bones.iter().enumerate() {
        let (ibm, rest) = (matrix(b, 16), matrix(b, 80));
        assert_eq!(Mat4::from_cols_array(&ibm), bone.inverse_bind);
        // Frame 0 is the rest pose: P = rest_global · inverse_bind.
        let p = (Mat4::from_cols_array(&rest) * Mat4::from_cols_array(&ibm)).to_cols_array();
        for r in 0..3 {
            assert_eq!(
                texel_from_doc(&model, texl, 0, b as u32, r),
                doc_row(&p, r as usize)
            );
        }
        // Frame k of clip c is global frame first_frame + k, sampled at k·D/(n−1).
        for clip in &model.clips {
            let source = scene.clips.iter().find(|c| c.name == clip.name).unwrap();
            let n = clip.frame_count;
            for k in 0..n {
                let t = if k + 1 == n {
                    clip.duration
                } else {
                    k as f32 * clip.duration / (n - 1) as f32
                };
                let g = eval.globals(Some(source), t)[bone.node as usize];
                let p = (g * bone.inverse_bind).to_cols_array();
                for r in 0..3 {
                    assert_eq!(
                        texel_from_doc(&model, texl, clip.first_frame + k, b as u32, r),
                        doc_row(&p, r as usize),
                        "clip {:?} frame {k} bone {b} row {r}",
                        clip.name
                    );
                    checked += 1;
                }
            }
        }
    }
    // The baker's frame table: rest pose, then each clip's frames in order.
    let mut next = 1;
    for clip in &model.clips {
        assert_eq!(clip.first_frame, next);
        next += clip.frame_count;
    }
    assert_eq!(next as usize, frames);
    assert!(matches!(model.texture.texels, Texels::F32(_)));
    println!(
        "{MODEL}: {checked} texel rows at W={} × {} layers match the documented addressing",
        model.texture.width, model.texture.layers
    );
}
