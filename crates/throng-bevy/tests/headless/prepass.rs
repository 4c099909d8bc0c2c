//! The crowd in Bevy's prepasses: a camera with `DepthPrepass`,
//! `NormalPrepass` and `MotionVectorPrepass` over a walking crowd whose
//! Foxes and camera move between two frames. Bevy's motion-vector texture,
//! read back after the frame, holds at every Fox vertex its depth texture
//! shows the screen motion computed on the CPU — the baked pose of each
//! frame (`skin_vertex` with the crowd's `frame_blend`), each Fox's
//! transform and Bevy's camera of each frame — within a stated tolerance;
//! without the crowd in the prepass (a camera whose renderer has no
//! prepass) those pixels hold Bevy's ground's depth or none, and the test
//! says so.

use std::sync::{Arc, Mutex};

use bevy::core_pipeline::prepass::{
    DepthPrepass, MotionVectorPrepass, NormalPrepass, ViewPrepassTextures,
};
use bevy::prelude::*;
use bevy::render::renderer::{RenderDevice, RenderQueue, render_system};
use bevy::render::view::ExtractedView;
use bevy::render::{Render, RenderApp, RenderSystems};
use throng_bevy::{ThrongCrowd, convert};
use throng_render::wgpu;

use super::{SIZE, app, assets, camera, settle, standing};

/// How far a motion vector read back may be from the CPU's at a vertex
/// the prepass shows, in pixels: the pixel's centre is up to 0.71 pixel
/// from the vertex, across which the motion changes a little, and
/// Rg16Float rounding (as throng-render's own prepass test).
const MOTION_TOLERANCE_PX: f32 = 0.5;

/// Vertices shown whose motion may be off by more (silhouette vertices
/// whose pixel shows a neighbouring surface of nearly the same depth).
const OUTLIERS: f64 = 0.01;

/// A vertex counts as shown where the prepass's depth at its pixel is
/// within this fraction of its own (reverse Z).
const SHOWN_DEPTH: f32 = 0.001;

/// The ground's height in the scene, and how far above it a vertex must
/// be to count: where a foot meets the ground a pixel's depth cannot tell
/// the two apart, and the ground's motion is the camera's alone.
const GROUND: f32 = -0.5;
const FEET: f32 = 2.0;

/// Per pixel: motion vector (x, y) and prepass depth, once asked for.
#[derive(Resource, Clone, Default)]
struct Readback {
    wanted: Arc<Mutex<bool>>,
    texels: Arc<Mutex<Option<Vec<[f32; 4]>>>>,
}

const COPY_SHADER: &str = r#"
@group(0) @binding(0) var motion: texture_2d<f32>;
@group(0) @binding(1) var depth: texture_depth_2d;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(8, 8)
fn copy(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(motion);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let m = textureLoad(motion, id.xy, 0).xy;
    out[id.y * size.x + id.x] = vec4<f32>(m, textureLoad(depth, id.xy, 0), 0.0);
}
"#;

/// After Bevy's graph ran: the view's motion vectors and prepass depth
/// copied out by a compute pass (Bevy's prepass textures cannot be copied
/// directly) and read back.
fn read_prepass(
    views: Query<&ViewPrepassTextures, With<ExtractedView>>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
    readback: Res<Readback>,
) {
    if !std::mem::take(&mut *readback.wanted.lock().unwrap()) {
        return;
    }
    let Some(textures) = views.iter().next() else {
        return;
    };
    let (Some(motion), Some(depth)) = (&textures.motion_vectors, textures.depth_only_view()) else {
        return;
    };
    let device = device.wgpu_device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("prepass readback"),
        source: wgpu::ShaderSource::Wgsl(COPY_SHADER.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("prepass readback"),
        layout: None,
        module: &module,
        entry_point: Some("copy"),
        compilation_options: Default::default(),
        cache: None,
    });
    let bytes = (SIZE.0 * SIZE.1 * 16) as u64;
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("prepass texels"),
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let read = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("prepass texels readback"),
        size: bytes,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("prepass readback"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&motion.texture.default_view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(depth),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: out.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(SIZE.0.div_ceil(8), SIZE.1.div_ceil(8), 1);
    }
    encoder.copy_buffer_to_buffer(&out, 0, &read, 0, bytes);
    queue.submit([encoder.finish()]);
    read.slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let data = read.slice(..).get_mapped_range().unwrap();
    let f = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let texels = data
        .chunks_exact(16)
        .map(|t| [f(&t[0..]), f(&t[4..]), f(&t[8..]), f(&t[12..])])
        .collect();
    *readback.texels.lock().unwrap() = Some(texels);
}

/// The Foxes' poses and transforms and the camera's `clip_from_world`
/// as the frame just prepared them.
struct Seen {
    foxes: Vec<(throng_core::gpu::FrameBlend, glam::Mat4)>,
    clip_from_world: glam::Mat4,
}

fn seen(app: &mut App) -> Seen {
    let world = app.world_mut();
    let (camera, transform, projection) = world
        .query::<(&Camera, &GlobalTransform, &Projection)>()
        .single(world)
        .map(|(c, t, p)| (c.clone(), *t, p.clone()))
        .unwrap();
    let crowd = &world.query::<&ThrongCrowd>().single(world).unwrap().crowd;
    let foxes = crowd
        .ids()
        .map(|id| {
            let blend = crowd.frame_blend(id).unwrap();
            (blend, crowd.state(id).unwrap().world_from_model)
        })
        .collect();
    let clip_from_world = convert::camera(&camera, &transform, Some(&projection)).clip_from_world();
    Seen {
        foxes,
        clip_from_world,
    }
}

/// Screen position (pixels, y down) and reverse-Z depth of `p`.
fn project(clip_from_world: &glam::Mat4, p: glam::Vec3) -> (glam::Vec2, f32) {
    let c = *clip_from_world * p.extend(1.0);
    let ndc = c.truncate() / c.w;
    let px = glam::Vec2::new(
        (ndc.x * 0.5 + 0.5) * SIZE.0 as f32,
        (0.5 - ndc.y * 0.5) * SIZE.1 as f32,
    );
    (px, ndc.z)
}

/// Bevy's motion vector: (clip xy now − clip xy then) × (0.5, −0.5).
fn motion(now: &glam::Mat4, p: glam::Vec3, then: &glam::Mat4, q: glam::Vec3) -> glam::Vec2 {
    let ndc = |m: &glam::Mat4, p: glam::Vec3| {
        let c = *m * p.extend(1.0);
        glam::Vec2::new(c.x, c.y) / c.w
    };
    (ndc(now, p) - ndc(then, q)) * glam::Vec2::new(0.5, -0.5)
}

#[test]
fn bevys_motion_vectors_of_a_walking_moving_crowd_equal_the_cpu_screen_motion() {
    let dir = assets("prepass");
    let mut app = app(&dir);
    let handle = standing(&mut app);
    let baked = handle.model();
    let readback = Readback::default();
    app.sub_app_mut(RenderApp)
        .insert_resource(readback.clone())
        .add_systems(
            Render,
            read_prepass
                .in_set(RenderSystems::Render)
                .after(render_system),
        );
    let cam = camera(&mut app);
    app.world_mut()
        .entity_mut(cam)
        .insert((DepthPrepass, NormalPrepass, MotionVectorPrepass));
    settle(&mut app);
    let then = seen(&mut app);

    // The next frame: the crowd walks on, each Fox and the camera move.
    {
        let world = app.world_mut();
        let mut crowd = world.query::<&mut ThrongCrowd>().single_mut(world).unwrap();
        let crowd = &mut crowd.crowd;
        crowd.update(0.1);
        let ids: Vec<_> = crowd.ids().collect();
        for (i, id) in ids.into_iter().enumerate() {
            let at = crowd.state(id).unwrap().world_from_model;
            let step = glam::Vec3::new(8.0, 0.0, -6.0 + 2.0 * i as f32);
            crowd
                .set_transform(id, glam::Mat4::from_translation(step) * at)
                .unwrap();
        }
        let mut t = world.get_mut::<Transform>(cam).unwrap();
        *t = Transform::from_xyz(12.0, 178.0, 412.0).looking_at(Vec3::new(0.0, 20.0, 0.0), Vec3::Y);
    }
    *readback.wanted.lock().unwrap() = true;
    app.update();
    let now = seen(&mut app);
    let texels = readback
        .texels
        .lock()
        .unwrap()
        .take()
        .expect("the prepass was read back");

    let px = glam::Vec2::new(SIZE.0 as f32, SIZE.1 as f32);
    let vertices = &baked.lods[0].vertices;
    let (mut shown, mut off, mut worst, mut largest, mut still_worst) =
        (0usize, 0usize, 0f32, 0f32, 0f32);
    for ((blend_then, world_then), (blend_now, world_now)) in then.foxes.iter().zip(&now.foxes) {
        for v in vertices {
            let skin = |b| throng_core::baked::skin_vertex(baked, v, b).0;
            let p = world_now.transform_point3(skin(blend_now));
            let q = world_then.transform_point3(skin(blend_then));
            if p.y < GROUND + FEET || q.y < GROUND + FEET {
                continue;
            }
            let (at, z) = project(&now.clip_from_world, p);
            if at.x < 0.0 || at.y < 0.0 || at.x >= px.x || at.y >= px.y {
                continue;
            }
            let texel = texels[at.y as usize * SIZE.0 as usize + at.x as usize];
            if (texel[2] - z).abs() > SHOWN_DEPTH * z {
                continue;
            }
            shown += 1;
            let expected = motion(&now.clip_from_world, p, &then.clip_from_world, q);
            let read = glam::Vec2::new(texel[0], texel[1]);
            let error = ((read - expected) * px).length();
            worst = worst.max(error);
            largest = largest.max((expected * px).length());
            off += (error > MOTION_TOLERANCE_PX) as usize;
            // The pose held still: now's pose where the Fox was.
            let still = motion(
                &now.clip_from_world,
                p,
                &then.clip_from_world,
                world_then.transform_point3(skin(blend_now)),
            );
            still_worst = still_worst.max(((still - expected) * px).length());
        }
    }
    println!(
        "{shown} crowd vertices shown in Bevy's prepass; {off} with motion off by more than {MOTION_TOLERANCE_PX} px (worst {worst:.3} px; largest motion {largest:.1} px; the pose held still would be off by up to {still_worst:.1} px)"
    );
    assert!(
        still_worst > 4.0 * MOTION_TOLERANCE_PX,
        "the pose's own motion is measured: {still_worst} px"
    );
    assert!(
        shown > 300,
        "the crowd is in Bevy's prepass depth: {shown} vertices shown"
    );
    assert!(largest > 3.0, "the crowd moved on screen: {largest} px");
    assert!(
        off as f64 <= OUTLIERS * shown as f64,
        "{off} of {shown} vertices' motion off by more than {MOTION_TOLERANCE_PX} px (worst {worst:.3})"
    );
}
