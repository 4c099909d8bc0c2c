//! One bone texture for many models (`throng_render::shared_frames`), on
//! the adapter the tests run on (lavapipe; again on llvmpipe GL from
//! `tools/test.sh`).
//!
//! * **Bytes**: twenty bodies of one build (the Fox's rig and clips, each
//!   its mesh scaled differently, so that only the vertices differ) bind
//!   one bone texture; the frame's statistics count its bytes once and the
//!   other nineteen as shared. A model whose frames differ in one texel
//!   gets a texture of its own. Once every model of a texture is
//!   dropped, the store holds none.
//! * **Pictures**: every record path draws a crowd of bodies that share
//!   one texture exactly as it draws them each uploaded alone.

use throng_core::BakedModel;
use throng_core::model::Texels;
use throng_crowd::crowd::ModelHandle;
use throng_render::{FrameStats, GpuModel, RendererOptions, SharedFrames, TextureUpload};
use throng_tests::golden as common;
use throng_tests::require_gpu;
use throng_tests::scenes::{self, EVERY_PATH, FOX_ROW, FOX_ROW_VIEW};

const BODIES: usize = 20;
const SIZE: (u32, u32) = (192, 96);

/// Body `i` of the Fox's build: its mesh scaled by `1 - 0.01·i` about the
/// origin (the rig, and so the frames, untouched).
fn body(fox: &ModelHandle, i: usize) -> ModelHandle {
    let mut m: BakedModel = fox.model().clone();
    m.name = format!("body {i}");
    let s = 1.0 - 0.01 * i as f32;
    for lod in &mut m.lods {
        for v in &mut lod.vertices {
            v.position = v.position.map(|c| c * s);
        }
    }
    ModelHandle::new(m).expect("validates")
}

/// The Fox with one texel of its frames nudged: the same shape, other
/// frames.
fn nudged(fox: &ModelHandle) -> ModelHandle {
    let mut m: BakedModel = fox.model().clone();
    m.name = "nudged".into();
    match &mut m.texture.texels {
        Texels::F32(t) => t.last_mut().expect("texels")[3] += 0.25,
        // One ulp more, in the 16-bit float's own bits.
        Texels::F16(t) => {
            let last = t.last_mut().expect("texels");
            last[3] = bytemuck::cast(bytemuck::cast::<_, u16>(last[3]) ^ 1);
        }
    }
    ModelHandle::new(m).expect("validates")
}

fn upload_sharing(gpu: &throng_render::Gpu, h: &ModelHandle, store: &SharedFrames) -> GpuModel {
    GpuModel::upload_sharing(&gpu.device, &gpu.queue, h, TextureUpload::Auto, store)
        .unwrap_or_else(|e| panic!("uploading {}: {e}", h.model().name))
}

#[test]
fn bodies_of_one_build_bind_one_bone_texture() {
    let gpu = require_gpu("shared frames");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let bodies: Vec<ModelHandle> = (0..BODIES).map(|i| body(&fox, i)).collect();
    let store = SharedFrames::new();
    let models: Vec<GpuModel> = bodies
        .iter()
        .map(|h| upload_sharing(&gpu, h, &store))
        .collect();
    let one = models[0].bone_bytes;
    assert!(one > 0);
    assert_eq!(store.textures(), 1, "twenty bodies of one build");
    assert!(!models[0].shares_frames(), "the first uploads");
    assert!(models[1..].iter().all(GpuModel::shares_frames));
    for m in &models[1..] {
        assert_eq!(
            m.gpu_bytes + m.bone_bytes,
            models[0].gpu_bytes,
            "{}",
            m.name()
        );
    }

    // The frame's statistics, on one renderer, every body in the crowd.
    let crowd = scenes::crowd_of(
        bodies
            .iter()
            .enumerate()
            .map(|(i, h)| (h, FOX_ROW.spawn(i % 3))),
    );
    let refs: Vec<&GpuModel> = models.iter().collect();
    let mut renderer = scenes::renderer(&gpu, RendererOptions::default());
    let camera = FOX_ROW_VIEW.camera(SIZE);
    let (_, stats) = scenes::draw(&mut renderer, &gpu, SIZE, &camera, &[&crowd], &refs);
    let FrameStats {
        bone_bytes,
        shared_bone_bytes,
        ..
    } = stats;
    println!(
        "{BODIES} bodies × the Fox's clips: bone textures {} KiB on the GPU, {} KiB shared \
         ({} KiB apart)",
        bone_bytes >> 10,
        shared_bone_bytes >> 10,
        (bone_bytes + shared_bone_bytes) >> 10
    );
    assert_eq!(bone_bytes, one);
    assert_eq!(shared_bone_bytes, (BODIES as u64 - 1) * one);

    // Other frames of the same shape, another texture; none held once
    // their models are gone.
    let nudged = nudged(&fox);
    let own = upload_sharing(&gpu, &nudged, &store);
    assert!(!own.shares_frames());
    assert_eq!(store.textures(), 2);
    drop(refs);
    drop((models, own));
    assert_eq!(store.textures(), 0);
}

#[test]
fn shared_bone_textures_draw_what_their_own_draw() {
    let gpu = require_gpu("shared frames");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let bodies: Vec<ModelHandle> = (0..3).map(|i| body(&fox, 4 * i)).collect();
    let crowd = scenes::crowd_of(
        bodies
            .iter()
            .enumerate()
            .map(|(i, h)| (h, FOX_ROW.spawn(i))),
    );
    let handles: Vec<&ModelHandle> = bodies.iter().collect();
    let apart = scenes::upload(&gpu, &handles);
    let store = SharedFrames::new();
    let shared: Vec<GpuModel> = bodies
        .iter()
        .map(|h| upload_sharing(&gpu, h, &store))
        .collect();
    assert_eq!(store.textures(), 1);
    let camera = FOX_ROW_VIEW.camera(SIZE);
    let dir = std::env::temp_dir().join("throng-shared-frames");
    for path in EVERY_PATH {
        let options = RendererOptions {
            path,
            ..RendererOptions::default()
        };
        let draw = |models: &[GpuModel]| {
            let refs: Vec<&GpuModel> = models.iter().collect();
            let mut r = scenes::renderer(&gpu, options.clone());
            scenes::draw(&mut r, &gpu, SIZE, &camera, &[&crowd], &refs).0
        };
        let (a, b) = (draw(&apart), draw(&shared));
        let name = format!("shared-{path:?}");
        if a != b {
            std::fs::create_dir_all(&dir).ok();
            a.save(dir.join(format!("{name}-apart.png"))).ok();
            b.save(dir.join(format!("{name}-shared.png"))).ok();
        }
        let differing = a.pixels().zip(b.pixels()).filter(|(x, y)| x != y).count();
        assert_eq!(
            differing,
            0,
            "{path:?}: pixels differ (pictures in {})",
            dir.display()
        );
    }
}
