//! The crowd in a caller's prepass (`Renderer::set_prepass`,
//! `Renderer::draw_prepass`; Bevy's depth, normal and motion-vector
//! prepass): between two frames a walking crowd plays on, every Fox moves
//! and the camera moves; the motion vectors read back equal, at every
//! vertex the prepass shows, the screen motion computed on the CPU from
//! the baked pose of each frame (`skin_vertex` with the crowd's
//! `frame_blend`), each transform and each camera — and are far from what
//! they would be with the pose held still. The colour pass, drawn after
//! the prepass into its depth, passes its or-equal test: it colours the
//! pixels the prepass covered. On a path without a GPU cull the call is
//! refused.

use glam::{Mat4, Vec2, Vec3};
use throng_core::model::BakedVertex;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, Spawn};
use throng_render::{
    DepthConvention, GpuModel, PrepassTarget, RecordPath, Renderer, RendererOptions,
};
use throng_tests::require_gpu;

use super::support::depth_pass;

const SIZE: (u32, u32) = (256, 192);

/// How far a motion vector read back may be from the CPU's at a vertex
/// the prepass shows, in pixels: the pixel's centre is up to 0.71 pixel
/// from the vertex, across which the motion changes little; and Rg16Float
/// rounding.
const MOTION_TOLERANCE_PX: f32 = 0.5;

/// Vertices shown whose motion may be off by more (silhouette vertices
/// whose pixel shows a neighbouring surface of nearly the same depth).
const OUTLIERS: f64 = 0.01;

/// A vertex counts as shown where the prepass's depth at its pixel is
/// within this fraction of its own (reverse Z: depth ∝ 1 / distance).
const SHOWN_DEPTH: f32 = 0.001;

/// A camera at `eye` in Bevy's convention: reverse Z, infinite far plane.
fn camera(eye: Vec3) -> Camera {
    let (fov, aspect, near) = (45f32.to_radians(), SIZE.0 as f32 / SIZE.1 as f32, 5.0);
    let standard = Camera::look_at(
        eye,
        Vec3::new(0.0, 40.0, -60.0),
        Vec3::Y,
        fov,
        aspect,
        near,
        5000.0,
    );
    Camera {
        clip_from_view: glam::camera::rh::proj::directx::perspective_infinite_reverse(
            fov, aspect, near,
        ),
        ..standard
    }
}

fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let man = (h & 0x3ff) as f32;
    sign * match exp {
        0 => man * 2f32.powi(-24),
        31 => f32::INFINITY,
        e => (1.0 + man / 1024.0) * 2f32.powi(e as i32 - 15),
    }
}

fn texture(gpu: &throng_render::Gpu, format: wgpu::TextureFormat) -> wgpu::Texture {
    throng_render::offscreen::readable_target(&gpu.device, "prepass target", SIZE, format)
}

/// Reads a 4-byte-a-texel texture back, row by row.
fn read_texels(gpu: &throng_render::Gpu, texture: &wgpu::Texture) -> Vec<[u16; 2]> {
    let row = SIZE.0 * 4;
    assert_eq!(row % wgpu::COPY_BYTES_PER_ROW_ALIGNMENT, 0);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("prepass readback"),
        size: (row * SIZE.1) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: None,
            },
        },
        texture.size(),
    );
    gpu.queue.submit([encoder.finish()]);
    buffer
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let data = buffer.slice(..).get_mapped_range().unwrap();
    bytemuck::cast_slice::<u8, [u16; 2]>(&data).to_vec()
}

/// The frame's prepass: depth cleared to 0 (reverse Z), normals, motion
/// vectors; then, with `colour`, the colour pass over the same depth.
struct Frame {
    depth: wgpu::Texture,
    normals: wgpu::Texture,
    motion: wgpu::Texture,
    colour: throng_render::Offscreen,
}

fn draw(gpu: &throng_render::Gpu, renderer: &Renderer) -> Frame {
    let frame = Frame {
        depth: texture(gpu, wgpu::TextureFormat::Depth32Float),
        normals: texture(gpu, wgpu::TextureFormat::Rgb10a2Unorm),
        motion: texture(gpu, wgpu::TextureFormat::Rg16Float),
        colour: throng_render::Offscreen::new(&gpu.device, SIZE).unwrap(),
    };
    let view = |t: &wgpu::Texture| t.create_view(&Default::default());
    let (depth, normals, motion) = (
        view(&frame.depth),
        view(&frame.normals),
        view(&frame.motion),
    );
    let attachment = |view| {
        Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                store: wgpu::StoreOp::Store,
            },
        })
    };
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = depth_pass(
            &mut encoder,
            "prepass",
            &[attachment(&normals), attachment(&motion)],
            &depth,
            wgpu::LoadOp::Clear(0.0),
        );
        renderer.draw_prepass(&mut pass);
    }
    {
        // The colour pass loads the prepass's depth, as Bevy's main pass does.
        let mut pass = depth_pass(
            &mut encoder,
            "colour after the prepass",
            &[attachment(&frame.colour.view)],
            &depth,
            wgpu::LoadOp::Load,
        );
        renderer.draw(&mut pass);
    }
    gpu.queue.submit([encoder.finish()]);
    frame
}

/// Screen position (pixels, y down) and reverse-Z depth of world point `p`.
fn project(clip_from_world: &Mat4, p: Vec3) -> (Vec2, f32) {
    let c = *clip_from_world * p.extend(1.0);
    let ndc = c.truncate() / c.w;
    let px = Vec2::new(
        (ndc.x * 0.5 + 0.5) * SIZE.0 as f32,
        (0.5 - ndc.y * 0.5) * SIZE.1 as f32,
    );
    (px, ndc.z)
}

/// Bevy's motion vector of a point seen at `now` (through `camera`) and
/// at `then` (through `previous`): a UV offset, (clip now − clip then) ×
/// (0.5, −0.5).
fn motion(camera: &Mat4, now: Vec3, previous: &Mat4, then: Vec3) -> Vec2 {
    let ndc = |m: &Mat4, p: Vec3| {
        let c = *m * p.extend(1.0);
        Vec2::new(c.x, c.y) / c.w
    };
    (ndc(camera, now) - ndc(previous, then)) * Vec2::new(0.5, -0.5)
}

#[test]
fn motion_vectors_of_a_walking_moving_crowd_equal_the_cpu_screen_motion() {
    let gpu = require_gpu("prepass");
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let baked = handle.model();
    let mut crowd = Crowd::new();
    let fox = crowd.add_model(&handle);
    let ids: Vec<_> = (0..6)
        .map(|i| {
            let at = Vec3::new(
                (i % 3) as f32 * 110.0 - 110.0,
                0.0,
                -((i / 3) as f32) * 120.0,
            );
            let spawn = Spawn {
                transform: Mat4::from_translation(at) * Mat4::from_rotation_y(0.7 * i as f32),
                // The Fox's walk and run.
                clip: Some(1 + i % 2),
                time: 0.21 * i as f32,
                ..Spawn::default()
            };
            crowd.spawn(fox, spawn).unwrap()
        })
        .collect();
    crowd.update(0.0);
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let options = RendererOptions {
        depth: DepthConvention::Reversed,
        ..RendererOptions::default()
    };
    let mut renderer = Renderer::headless(&gpu, options).unwrap();
    let target = PrepassTarget {
        color_slots: 2,
        ..PrepassTarget::default()
    };
    if renderer.path() != RecordPath::GpuDriven {
        let refused = renderer.set_prepass(Some(target));
        println!(
            "{} draws on the {:?} path: {refused:?}",
            gpu.adapter_summary(),
            renderer.path()
        );
        assert!(refused.is_err(), "a prepass needs the GPU cull");
        return;
    }
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    renderer.set_prepass(Some(target)).unwrap();

    // Frame one.
    let before = camera(Vec3::new(-20.0, 150.0, 300.0));
    renderer
        .prepare_draws(&before, &[&crowd], &[&model])
        .unwrap();
    draw(&gpu, &renderer);
    let then: Vec<_> = ids
        .iter()
        .map(|&id| {
            let blend = crowd.frame_blend(id).unwrap();
            (blend, crowd.state(id).unwrap().world_from_model)
        })
        .collect();

    // Frame two: the crowd walks on, each Fox moves, so does the camera.
    crowd.update(0.05);
    for (i, &id) in ids.iter().enumerate() {
        let moved = Mat4::from_translation(Vec3::new(3.0, 0.0, -4.0 + i as f32))
            * crowd.state(id).unwrap().world_from_model;
        crowd.set_transform(id, moved).unwrap();
    }
    let after = camera(Vec3::new(-14.0, 154.0, 296.0));
    renderer
        .prepare_draws(&after, &[&crowd], &[&model])
        .unwrap();
    let frame = draw(&gpu, &renderer);
    let depth =
        throng_render::offscreen::read_depth(&gpu.device, &gpu.queue, &frame.depth).unwrap();
    let motions = read_texels(&gpu, &frame.motion);
    let normals = read_texels(&gpu, &frame.normals);
    let colour = frame.colour.read(&gpu.device, &gpu.queue).unwrap();
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "wgpu validation error"
    );

    let (now_m, then_m) = (after.clip_from_world(), before.clip_from_world());
    let px = Vec2::new(SIZE.0 as f32, SIZE.1 as f32);
    let vertices: &[BakedVertex] = &baked.lods[0].vertices;
    let (mut shown, mut off, mut worst, mut largest, mut still_worst) =
        (0usize, 0usize, 0f32, 0f32, 0f32);
    for (&id, (blend_then, world_then)) in ids.iter().zip(&then) {
        let blend_now = crowd.frame_blend(id).unwrap();
        let world_now = crowd.state(id).unwrap().world_from_model;
        for v in vertices {
            let p_now =
                world_now.transform_point3(throng_core::baked::skin_vertex(baked, v, &blend_now).0);
            let p_then = world_then
                .transform_point3(throng_core::baked::skin_vertex(baked, v, blend_then).0);
            let (at, z) = project(&now_m, p_now);
            if at.x < 0.0 || at.y < 0.0 || at.x >= px.x || at.y >= px.y {
                continue;
            }
            let i = at.y as usize * SIZE.0 as usize + at.x as usize;
            if (depth[i] - z).abs() > SHOWN_DEPTH * z {
                continue;
            }
            shown += 1;
            let expected = motion(&now_m, p_now, &then_m, p_then);
            // The pose held still: the vertex as skinned now, moved by the
            // previous transform.
            let p_still = world_then
                .transform_point3(throng_core::baked::skin_vertex(baked, v, &blend_now).0);
            let still = motion(&now_m, p_now, &then_m, p_still);
            let read = Vec2::new(half_to_f32(motions[i][0]), half_to_f32(motions[i][1]));
            let error = ((read - expected) * px).length();
            worst = worst.max(error);
            largest = largest.max((expected * px).length());
            still_worst = still_worst.max(((still - expected) * px).length());
            off += (error > MOTION_TOLERANCE_PX) as usize;
        }
    }
    // Normals: unit world normals where the prepass drew.
    let covered: Vec<usize> = (0..depth.len()).filter(|&i| depth[i] > 0.0).collect();
    let unit = |n: [u16; 2]| {
        let w = n[0] as u32 | (n[1] as u32) << 16;
        let c = |s: u32| ((w >> s) & 0x3ff) as f32 / 1023.0 * 2.0 - 1.0;
        Vec3::new(c(0), c(10), c(20)).length()
    };
    let bad_normals = covered
        .iter()
        .filter(|&&i| (unit(normals[i]) - 1.0).abs() > 0.01)
        .count();
    let uncoloured = covered
        .iter()
        .filter(|&&i| colour.as_raw()[i * 4 + 3] == 0)
        .count();
    println!(
        "{}: {} pixels in the prepass; {shown} vertices shown, {off} with motion off by more than {MOTION_TOLERANCE_PX} px (worst {worst:.3} px; largest motion {largest:.1} px; the pose held still would be off by up to {still_worst:.1} px); {bad_normals} normals not unit; {uncoloured} prepass pixels the colour pass left empty",
        gpu.adapter_summary(),
        covered.len()
    );
    assert!(
        covered.len() > 2000,
        "the crowd is in the prepass: {}",
        covered.len()
    );
    assert!(shown > 300, "vertices shown: {shown}");
    assert!(
        off as f64 <= OUTLIERS * shown as f64,
        "{off} of {shown} vertices' motion off by more than {MOTION_TOLERANCE_PX} px (worst {worst:.3})"
    );
    assert!(largest > 3.0, "the crowd moved on screen: {largest} px");
    assert!(
        still_worst > 10.0 * MOTION_TOLERANCE_PX,
        "the pose's own motion is measured: {still_worst} px"
    );
    assert_eq!(bad_normals, 0, "normals are unit vectors, n × 0.5 + 0.5");
    assert!(
        uncoloured as f64 <= 0.001 * covered.len() as f64,
        "the colour pass passes its depth test on the prepass's depth: {uncoloured} pixels left"
    );
}
