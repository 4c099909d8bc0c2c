//! Bad input is normal input, on the GPU side. A model whose bone
//! texture exceeds the device's limits, a material texture whose image is
//! corrupt or larger than the device allows (in any slot), zero instances, an unknown clip name,
//! a despawned id, a crowd drawn without its GPU model, a zero-sized target
//! and a custom fragment shader that does not fit each give a clear error or
//! a documented no-op — no panic, and no wgpu validation error.

use throng_tests::golden as common;

use throng_bake::{BakeOptions, bake, import_file};
use throng_crowd::crowd::{Crowd, CrowdError, ModelHandle, Spawn};
use throng_render::shader::ShaderError;
use throng_render::{
    CustomFragment, GpuModel, OFFSCREEN_FORMAT, Offscreen, RenderError, Renderer, RendererOptions,
};
use throng_tests::require_gpu;

/// A device on the same adapter with deliberately small texture limits.
fn small_device(
    adapter: &wgpu::Adapter,
    max_side: u32,
    max_layers: u32,
) -> (wgpu::Device, wgpu::Queue) {
    let limits = wgpu::Limits {
        max_texture_dimension_2d: max_side,
        max_texture_array_layers: max_layers,
        ..wgpu::Limits::downlevel_defaults()
    };
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("small-limits test device"),
        required_features: wgpu::Features::empty(),
        required_limits: limits,
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))
    .expect("a device with lower limits")
}

/// The error of uploading `handle` to `device`, asserting that the upload
/// raised no wgpu validation error on the way (`what` names the case).
fn upload_error(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    handle: &ModelHandle,
    what: &str,
) -> RenderError {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let err = GpuModel::upload(device, queue, handle).unwrap_err();
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "{what}: no wgpu validation error"
    );
    err
}

#[test]
fn a_texture_beyond_the_device_limits_is_a_clear_error() {
    let gpu = require_gpu("bad input: texture limits");
    // Woman bakes to a single layer wider than 256 (467×467 at default
    // settings).
    let (_, woman) = common::baked("gszauer_Woman.gltf");
    let side = woman.model().texture.width;
    assert!(side > 256, "Woman's layer is {side} wide");
    let (device, queue) = small_device(&gpu.adapter, 256, 256);
    let err = upload_error(&device, &queue, &woman, "bone texture side");
    let msg = err.to_string();
    println!("{msg}");
    assert!(matches!(err, RenderError::TooBig { .. }), "{err:?}");
    assert!(
        msg.contains("bone texture side") && msg.contains(&side.to_string()) && msg.contains("256"),
        "{msg}"
    );

    // Layers: bake Fox into 64×64 layers, then allow only one layer.
    let scene = import_file(&common::asset("khronos_Fox.glb"))
        .unwrap()
        .scene;
    let opts = BakeOptions {
        max_layer_size: 64,
        ..BakeOptions::default()
    };
    let (layered, _) = bake(&scene, &opts, &|_, _| {}).unwrap();
    assert!(layered.texture.layers > 1);
    let layers = layered.texture.layers;
    let layered = ModelHandle::new(layered).unwrap();
    let (device, queue) = small_device(&gpu.adapter, 2048, 1);
    let err = upload_error(&device, &queue, &layered, "layers").to_string();
    println!("{err}");
    assert!(
        err.contains("layers") && err.contains(&layers.to_string()),
        "{err}"
    );
    // And the same layered model uploads and renders where layers are allowed.
    GpuModel::upload(&gpu.device, &gpu.queue, &layered).expect("a multi-layer texture uploads");
}

/// A normal map 4 texels wide and 3,000 tall, baked with its mips (BC7,
/// decoded at upload where the device has no BC textures).
fn tall_map() -> throng_core::material::Image {
    let tall = throng_bake::scene::SourceImage {
        name: "bumps.png".into(),
        width: 4,
        height: 3000,
        rgba: (0..4 * 3000 * 4).map(|i| (i % 251) as u8).collect(),
    };
    throng_bake::images::bake_image(
        &tall,
        throng_core::material::ImageContent::Normal,
        throng_core::texture_codec::TextureCodec::Bc7,
    )
}

#[test]
fn an_image_larger_than_the_device_uploads_from_the_first_mip_level_that_fits() {
    let gpu = require_gpu("bad input: texture images");
    let (_, fox) = common::baked("khronos_Fox.glb");
    // Image 1, used by the normal slot, for a device whose textures stop at
    // 2,048 (the Fox's own 1,024² texture fits).
    let tall = tall_map();
    // The small device has no BC textures: its levels are decoded, RGBA8.
    let expected: u64 = (1..tall.levels.len() as u32)
        .map(|l| {
            let (w, h) = tall.level_size(l);
            w as u64 * h as u64 * 4
        })
        .sum();
    let mut m = fox.model().clone();
    m.images.push(tall);
    m.materials[0].textures[throng_core::material::TextureSlot::Normal as usize] =
        Some(throng_core::material::TextureRef::new(1));
    let handle = ModelHandle::new(m).unwrap();
    GpuModel::upload(&gpu.device, &gpu.queue, &handle)
        .expect("a 4×3000 normal map uploads on the full device");
    let (device, queue) = small_device(&gpu.adapter, 2048, 256);
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let plain = GpuModel::upload(&device, &queue, &fox).expect("the Fox uploads");
    let small = GpuModel::upload(&device, &queue, &handle)
        .expect("the same image uploads from level 1 where 3,000 texels do not fit");
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "no validation error"
    );
    let image_bytes = small.gpu_bytes - plain.gpu_bytes;
    println!("levels 1.. of the 4×3000 image: {image_bytes} bytes on the 2,048-texel device");
    assert_eq!(
        image_bytes, expected,
        "the image's bytes are not levels 1.. decoded"
    );
}

/// The buffer that stages an image's upload is checked for the first level
/// the device takes, not for level 0, which it leaves out: on a device of
/// 2,048-texel textures and 40,000-byte buffers, a 4 × 3,000 map (48,000
/// bytes as RGBA8) uploads from level 1 (12,000).
#[test]
fn the_staging_limit_is_checked_for_the_first_level_uploaded() {
    let gpu = require_gpu("bad input: staging limit");
    let (_, skin) = common::baked("khronos_SimpleSkin.gltf");
    let mut m = skin.model().clone();
    m.images = vec![tall_map()];
    let mut material = throng_core::material::Material::default();
    material.textures[throng_core::material::TextureSlot::Normal as usize] =
        Some(throng_core::material::TextureRef::new(0));
    m.materials = vec![material];
    for s in &mut m.lods[0].submeshes {
        s.material = Some(0);
    }
    let handle = ModelHandle::new(m).unwrap();
    let limits = wgpu::Limits {
        max_texture_dimension_2d: 2048,
        max_buffer_size: 40_000,
        max_storage_buffer_binding_size: 40_000,
        ..wgpu::Limits::downlevel_defaults()
    };
    let (device, queue) = pollster::block_on(gpu.adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("small-buffers test device"),
        required_limits: limits,
        ..Default::default()
    }))
    .expect("a device with lower limits");
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    GpuModel::upload(&device, &queue, &handle)
        .expect("the map uploads from level 1, whose 12,000 bytes fit the staging buffer");
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "no validation error"
    );
}

#[test]
fn zero_instances_draw_only_the_background() {
    let gpu = require_gpu("bad input: zero instances");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &fox).unwrap();
    let mut renderer = Renderer::headless(&gpu, RendererOptions::default()).unwrap();
    let target = Offscreen::new(&gpu.device, (32, 32)).unwrap();
    let camera = throng_bench::demo::framing_camera(&fox.model().bounds, 1.0);
    let mut crowd = Crowd::new();
    crowd.add_model(&fox);
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    // An empty crowd, no crowds at all, and a crowd whose only instance was despawned.
    let stats = renderer
        .render(&target.view, (32, 32), &camera, &[&crowd], &[&model])
        .unwrap();
    assert_eq!(
        (stats.instances, stats.visible, stats.draws, stats.packages),
        (0, 0, 0, 0)
    );
    let stats = renderer
        .render(&target.view, (32, 32), &camera, &[], &[])
        .unwrap();
    assert_eq!(stats.draws, 0);
    let id = crowd
        .spawn(throng_crowd::crowd::ModelId(0), Spawn::default())
        .unwrap();
    crowd.despawn(id).unwrap();
    let stats = renderer
        .render(&target.view, (32, 32), &camera, &[&crowd], &[&model])
        .unwrap();
    assert_eq!(stats.draws, 0);
    let image = target.read(&gpu.device, &gpu.queue).unwrap();
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "no wgpu validation error"
    );
    let first = *image.get_pixel(0, 0);
    assert!(image.pixels().all(|p| *p == first), "only the clear colour");
}

#[test]
fn unknown_clips_and_despawned_ids_are_errors() {
    let (_, fox) = common::baked("khronos_Fox.glb");
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&fox);
    let err = crowd.clip_index(id, "Dance").unwrap_err();
    println!("{err}");
    assert!(matches!(err, CrowdError::UnknownClip { .. }));
    assert!(
        err.to_string().contains("Survey, Walk, Run"),
        "lists the clips: {err}"
    );
    let bad = crowd
        .spawn(
            id,
            Spawn {
                clip: Some(7),
                ..Spawn::default()
            },
        )
        .unwrap_err();
    assert!(
        matches!(
            bad,
            CrowdError::ClipOutOfRange {
                index: 7,
                count: 3,
                ..
            }
        ),
        "{bad}"
    );
    let nan = crowd
        .spawn(
            id,
            Spawn {
                time: f32::NAN,
                clip: Some(0),
                ..Spawn::default()
            },
        )
        .unwrap_err();
    assert!(matches!(nan, CrowdError::NotFinite(_)));

    let a = crowd
        .spawn(
            id,
            Spawn {
                clip: Some(0),
                ..Spawn::default()
            },
        )
        .unwrap();
    crowd.despawn(a).unwrap();
    let gone = CrowdError::NoSuchInstance(a);
    assert_eq!(crowd.despawn(a), Err(gone.clone()), "despawn twice");
    assert_eq!(crowd.play(a, 1), Err(gone.clone()));
    assert_eq!(crowd.cross_fade(a, 1, 0.3), Err(gone.clone()));
    assert_eq!(crowd.set_speed(a, 2.0), Err(gone.clone()));
    assert_eq!(crowd.pause(a), Err(gone.clone()));
    assert_eq!(
        crowd.set_transform(a, glam::Mat4::IDENTITY),
        Err(gone.clone())
    );
    assert!(crowd.state(a).is_err() && crowd.frame_blend(a).is_err());
    // The slot is reused, but the old id never aliases the new instance.
    let b = crowd.spawn(id, Spawn::default()).unwrap();
    assert_ne!(a, b);
    assert!(!crowd.contains(a) && crowd.contains(b));
    assert_eq!(crowd.play(a, 0), Err(gone));
    assert_eq!(crowd.len(), 1);
}

#[test]
fn rendering_without_the_model_or_into_nothing_is_an_error() {
    let gpu = require_gpu("bad input: missing model");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&fox);
    crowd.spawn(id, Spawn::default()).unwrap();
    let mut renderer = Renderer::headless(&gpu, RendererOptions::default()).unwrap();
    let target = Offscreen::new(&gpu.device, (16, 16)).unwrap();
    let camera = throng_bench::demo::framing_camera(&fox.model().bounds, 1.0);
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let err = renderer
        .render(&target.view, (16, 16), &camera, &[&crowd], &[])
        .unwrap_err();
    println!("{err}");
    assert!(
        matches!(err, RenderError::MissingModel { .. }) && err.to_string().contains("khronos_Fox")
    );
    let err = renderer
        .render(&target.view, (0, 16), &camera, &[&crowd], &[])
        .unwrap_err();
    assert!(
        matches!(err, RenderError::TargetSize { width: 0, .. }),
        "{err}"
    );
    assert!(Offscreen::new(&gpu.device, (0, 0)).is_err());
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "no wgpu validation error"
    );
}

#[test]
fn a_custom_fragment_that_does_not_fit_is_an_error_from_new() {
    let gpu = require_gpu("bad input: custom fragment");
    let new = |file: &str, source: &str, entry: &str, shadows: bool| {
        let options = RendererOptions {
            fragment: Some(CustomFragment {
                file: file.into(),
                source: source.into(),
                entry: entry.into(),
            }),
            shadows: if shadows {
                RendererOptions::default().shadows
            } else {
                None
            },
            ..RendererOptions::default()
        };
        let renderer = Renderer::new(
            &gpu.adapter,
            &gpu.device,
            &gpu.queue,
            OFFSCREEN_FORMAT,
            options,
        );
        let err = renderer.err().expect("an error");
        println!("{file}: {err}");
        err
    };
    let fs = "@fragment fn fs(in: VertexOut) -> @location(0) vec4<f32> { return in.tint; }";
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    // Does not compose: an unknown module, named with file and line.
    let err = new(
        "mine.wgsl",
        &format!("\n// #import drawing\n{fs}"),
        "fs",
        true,
    );
    assert!(
        matches!(
            err,
            RenderError::Shader(ShaderError::UnknownModule { line: 2, .. })
        ) && err.to_string().contains("mine.wgsl:2"),
        "{err}"
    );
    // Composes, but without Throng's vertex stage.
    let err = new("novs.wgsl", "// #import skinning\n", "fs", true);
    assert!(
        matches!(err, RenderError::Shader(ShaderError::MissingImport { .. })),
        "{err}"
    );
    // Not WGSL, a missing entry point, and the shadow map without shadows:
    // errors of the device, caught.
    let bad = [
        ("syntax.wgsl", "// #import draw\nfn (", "fs", true),
        (
            "entry.wgsl",
            &format!("// #import draw\n{fs}") as &str,
            "fs_nope",
            true,
        ),
        (
            "shadowless.wgsl",
            "// #import shadow_receive\n",
            "fs_shadowed",
            false,
        ),
    ];
    for (file, source, entry, shadows) in bad {
        let err = new(file, source, entry, shadows);
        assert!(
            matches!(&err, RenderError::Gpu { what, .. } if what.contains(file)),
            "{err}"
        );
    }
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "no wgpu validation error escapes"
    );
}
