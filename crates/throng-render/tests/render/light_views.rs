//! Light views of the caller's (`Renderer::prepare_light_views`, an
//! engine's shadow cascades): the crowd cast into a reverse-Z view with
//! the light the renderer fitted for its own map covers the same texels
//! as the own map, at depth 1 − the own map's (within the own pass's
//! slope bias); with the view's near plane moved into the crowd, the
//! casters in front of it are pancaked onto it (depth 1) where asked, and
//! clipped where not. On a path without a GPU cull the call is refused.
//! A renderer receiving such cascades (`RendererOptions::cascades`,
//! `Renderer::set_cascades`), sampled as Bevy samples its own, shadows the
//! crowd where a renderer with its own map of the same light does.

use glam::{Mat4, Vec3, Vec4};
use throng_crowd::crowd::{Crowd, Spawn};
use throng_render::ShadowOptions;
use throng_render::{
    DepthConvention, GpuModel, LightView, LightViewTarget, Offscreen, PathChoice, RecordPath,
    Renderer, RendererOptions,
};
use throng_tests::require_gpu;

use super::support::depth_pass;

const MAP: u32 = 256;

/// How much further from the light than 1 − the own map's depth the view
/// may record a texel: float rounding. (The other way it records nearer
/// by the own pass's slope-scaled bias, `cast_depth_state`, which grows
/// without bound on grazing triangles; a light view has none.)
const DEPTH_TOLERANCE: f32 = 0.001;

/// Texels covered in one map and not the other, as a fraction of those
/// covered: none expected (the same triangles through the same matrix);
/// this allows the odd silhouette texel where the own pass's slope bias
/// meets the clear depth.
const COVERAGE_TOLERANCE: f64 = 0.002;

/// The camera's picture size.
const SIZE: (u32, u32) = (192, 128);

/// The camera both tests draw the crowd through: from the front and above,
/// 50°, aspect 1.5 ([`SIZE`]).
fn camera() -> throng_crowd::camera::Camera {
    throng_crowd::camera::Camera::look_at(
        Vec3::new(0.0, 160.0, 380.0),
        Vec3::new(0.0, 20.0, -140.0),
        Vec3::Y,
        50f32.to_radians(),
        1.5,
        5.0,
        5000.0,
    )
}

/// `z' = w − z`: a standard `[0, 1]` depth matrix as reverse Z.
fn reversed(m: Mat4) -> Mat4 {
    let flip = Mat4::from_cols(Vec4::X, Vec4::Y, -Vec4::Z, Vec4::Z + Vec4::W);
    flip * m
}

fn crowd() -> Crowd {
    let mut crowd = Crowd::new();
    let model = crowd.add_model(&super::gpu_driven::fox_with_lods());
    for i in 0..24 {
        let at = Vec3::new((i % 6) as f32 * 90.0 - 225.0, 0.0, -((i / 6) as f32) * 90.0);
        let spawn = Spawn {
            transform: Mat4::from_translation(at),
            clip: Some(i % 3),
            time: 0.13 * i as f32,
            ..Spawn::default()
        };
        crowd.spawn(model, spawn).unwrap();
    }
    crowd.update(0.0);
    crowd
}

/// Draws light view 0 into a fresh `MAP`² depth target cleared to 0 and
/// reads it back.
fn draw_view(gpu: &throng_render::Gpu, renderer: &Renderer) -> Vec<f32> {
    let texture = throng_render::offscreen::readable_target(
        &gpu.device,
        "light view",
        (MAP, MAP),
        wgpu::TextureFormat::Depth32Float,
    );
    draw_into(gpu, renderer, &texture.create_view(&Default::default()));
    throng_render::offscreen::read_depth(&gpu.device, &gpu.queue, &texture).unwrap()
}

/// Draws light view 0 into `view` (a depth target), cleared to 0 first.
fn draw_into(gpu: &throng_render::Gpu, renderer: &Renderer, view: &wgpu::TextureView) {
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = depth_pass(
            &mut encoder,
            "light view pass",
            &[],
            view,
            wgpu::LoadOp::Clear(0.0),
        );
        renderer.draw_light_view(0, &mut pass);
    }
    gpu.queue.submit([encoder.finish()]);
}

/// Texels covered by one map and not the other, texels covered by the
/// own map, the worst depth where the view records a texel further from
/// the light than `expected` (of the own map's depth) and the largest
/// difference the other way, the own pass's bias.
fn compare(own: &[f32], view: &[f32], expected: impl Fn(f32) -> f32) -> (usize, usize, f32, f32) {
    let (mut mismatched, mut covered, mut further, mut bias) = (0, 0, 0.0f32, 0.0f32);
    for (&o, &v) in own.iter().zip(view) {
        let (a, b) = (o < 1.0, v > 0.0);
        covered += a as usize;
        if a != b {
            mismatched += 1;
        } else if a {
            // Reverse Z: nearer the light is greater.
            further = further.max(expected(o) - v);
            bias = bias.max(v - expected(o));
        }
    }
    (mismatched, covered, further, bias)
}

#[test]
fn a_reverse_z_light_view_holds_the_casters_of_the_own_map_and_pancakes_those_before_it() {
    let gpu = require_gpu("light_views");
    let crowd = crowd();
    let handle = crowd.models().next().unwrap().clone();
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let shadows = ShadowOptions {
        map_size: MAP,
        ..ShadowOptions::default()
    };
    let options = RendererOptions {
        path: PathChoice::Auto,
        shadows: Some(shadows),
        ..RendererOptions::default()
    };
    let mut renderer = Renderer::headless(&gpu, options).unwrap();
    let target = LightViewTarget {
        format: wgpu::TextureFormat::Depth32Float,
        depth: DepthConvention::Reversed,
        pancake: false,
        caster_lod_scale: shadows.caster_lod_scale,
    };
    let camera = camera();
    let screen = Offscreen::new(&gpu.device, SIZE).unwrap();
    let mut stats = renderer
        .render(&screen.view, SIZE, &camera, &[&crowd], &[&model])
        .unwrap();
    if renderer.path() != RecordPath::GpuDriven {
        let refused = renderer.prepare_light_views(&target, &[], &[&crowd], &[&model]);
        println!(
            "{} draws on the {:?} path: {refused:?}",
            gpu.adapter_summary(),
            renderer.path()
        );
        assert!(refused.is_err(), "light views need the GPU cull");
        return;
    }
    renderer.wait_gpu_stats(&mut stats).unwrap();
    let (texture, light) = renderer.shadow_map().unwrap();
    let light = light.expect("a light when something is visible");
    let own = throng_render::offscreen::read_depth(&gpu.device, &gpu.queue, texture).unwrap();

    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let views = [LightView {
        clip_from_world: reversed(light),
    }];
    let cast = renderer
        .prepare_light_views(&target, &views, &[&crowd], &[&model])
        .unwrap();
    let view = draw_view(&gpu, &renderer);
    let (mismatched, covered, further, bias) = compare(&own, &view, |o| 1.0 - o);
    println!(
        "{} ({} draws): the reverse-Z view against the own {MAP}² map: {covered} texels covered, {mismatched} differ, at most {further:.6} further from the light, {bias:.4} nearer (the own bias)",
        gpu.adapter_summary(),
        cast.draws
    );
    assert_eq!(cast.views, 1);
    assert!(cast.draws > 0, "the view plans the crowd's draws");
    assert!(covered > 2000, "the own map holds the casters: {covered}");
    assert!(
        mismatched as f64 <= COVERAGE_TOLERANCE * covered as f64,
        "{mismatched} of {covered} texels covered in one map only"
    );
    assert!(
        further <= DEPTH_TOLERANCE,
        "the view records casters {further} further from the light than the own map"
    );

    // The near plane moved to the median depth of the own map's casters:
    // those before it are pancaked onto it (depth 1), or clipped.
    let mut depths: Vec<f32> = own.iter().copied().filter(|&o| o < 1.0).collect();
    depths.sort_by(f32::total_cmp);
    let split = depths[depths.len() / 2];
    // z' = (z − split) / (1 − split), then reverse Z.
    let moved = |o: f32| 1.0 - (o - split) / (1.0 - split);
    let mut deeper = |pancake: bool| -> Vec<f32> {
        let near_at_split = Mat4::from_cols(
            Vec4::X,
            Vec4::Y,
            Vec4::new(0.0, 0.0, 1.0 / (1.0 - split), 0.0),
            Vec4::new(0.0, 0.0, -split / (1.0 - split), 1.0),
        );
        let views = [LightView {
            clip_from_world: reversed(near_at_split * light),
        }];
        let target = LightViewTarget { pancake, ..target };
        renderer
            .prepare_light_views(&target, &views, &[&crowd], &[&model])
            .unwrap();
        draw_view(&gpu, &renderer)
    };
    let half_in_front = own.iter().filter(|&&o| o < split).count();
    let pancaked = deeper(true);
    let at_near = pancaked.iter().filter(|&&d| d >= 1.0).count();
    let (mismatched, _, further, _) = compare(&own, &pancaked, |o| moved(o).min(1.0));
    let clipped = deeper(false);
    let (lost, _, _, _) = compare(&own, &clipped, moved);
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "wgpu validation error"
    );
    println!(
        "near plane at the median caster depth {split:.4}: {half_in_front} own texels before it; pancaked: {at_near} at the near plane, {mismatched} differ, at most {further:.6} further; unpancaked: {lost} lost"
    );
    assert!(half_in_front > 200, "casters before the moved near plane");
    assert!(at_near > 200, "casters before the near plane land on it");
    assert!(
        mismatched as f64 <= COVERAGE_TOLERANCE * covered as f64,
        "pancaked: {mismatched} of {covered} texels covered in one map only"
    );
    assert!(
        further <= DEPTH_TOLERANCE / (1.0 - split),
        "pancaked: casters {further} further from the light than the own map"
    );
    assert!(
        lost as f64 > 0.5 * half_in_front as f64,
        "without pancaking the casters before the near plane are clipped: {lost} lost"
    );
}

/// A shadow mask: the pixels of `shadowed` darker than `lit` by more than
/// ten times the golden per-pixel tolerance (in luma ×10).
fn darker(shadowed: &image::RgbaImage, lit: &image::RgbaImage) -> Vec<bool> {
    let luma = |p: &image::Rgba<u8>| p.0[0] as i32 * 3 + p.0[1] as i32 * 6 + p.0[2] as i32;
    let tolerance = 10 * throng_render::image_diff::PIXEL_LEVEL_TOLERANCE as i32;
    shadowed
        .pixels()
        .zip(lit.pixels())
        .map(|(s, l)| luma(s) + tolerance < luma(l))
        .collect()
}

/// The own map's shadowed pixels the cascades may leave lit: the filters
/// differ at shadow edges (Throng's 3×3 PCF over a caster with a
/// slope-scaled bias; Bevy's Castaño 13-tap, with normal and depth
/// offsets, whose penumbra is wider), not in where the shadows are.
const MISSED_TOLERANCE: f64 = 0.05;

/// How much nearer the own map's picture the cascaded one must be than the
/// unshadowed one, in mean level difference: the wider penumbra is the
/// rest.
const NEARER: f64 = 4.0;

#[test]
fn a_renderer_receiving_cascades_shadows_the_crowd_where_its_own_map_does() {
    let gpu = require_gpu("light_views");
    let mut crowd = crowd();
    // A Fox four times the size towards the light from the crowd, out of
    // the camera's view: its shadow falls across the crowd.
    let toward = RendererOptions::default().lighting.direction.normalize();
    let giant = Mat4::from_scale_rotation_translation(
        Vec3::splat(4.0),
        glam::Quat::from_rotation_y(1.2),
        Vec3::new(0.0, 0.0, -140.0) + toward * 420.0,
    );
    let handle = crowd.models().next().unwrap().clone();
    let fox = crowd.add_model(&handle);
    crowd
        .spawn(
            fox,
            Spawn {
                transform: giant,
                clip: Some(0),
                ..Spawn::default()
            },
        )
        .unwrap();
    crowd.update(0.0);
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let shadows = ShadowOptions {
        map_size: MAP,
        strength: 1.0,
        ..ShadowOptions::default()
    };
    let camera = camera();
    let picture = |renderer: &mut Renderer| {
        let screen = Offscreen::new(&gpu.device, SIZE).unwrap();
        renderer
            .render(&screen.view, SIZE, &camera, &[&crowd], &[&model])
            .unwrap();
        screen.read(&gpu.device, &gpu.queue).unwrap()
    };
    let options = |shadows, cascades: bool| RendererOptions {
        shadows,
        cascades: cascades.then_some(DepthConvention::Reversed),
        ..RendererOptions::default()
    };
    let mut own = Renderer::headless(&gpu, options(Some(shadows), false)).unwrap();
    let with_own = picture(&mut own);
    let mut stats = throng_render::FrameStats::default();
    own.wait_gpu_stats(&mut stats).unwrap();
    let light = own.shadow_map().unwrap().1.expect("a fitted light");
    let lit = picture(&mut Renderer::headless(&gpu, options(None, false)).unwrap());

    // The caller's cascades: one, in layer 1 of a two-layer reverse-Z
    // array, holding the crowd's casters from the own map's light.
    let mut cascaded = Renderer::headless(&gpu, options(None, true)).unwrap();
    // The cascade is drawn with the GPU cull's light view: an adapter
    // without the GPU-driven path fails here rather than passing unchecked
    // (the module runs on lavapipe, which has it).
    assert_eq!(
        cascaded.path(),
        RecordPath::GpuDriven,
        "{}: no GPU cull to draw the cascade with",
        gpu.adapter_summary()
    );
    // Its picture before any cascades are set: lit (the stand-in).
    let unset = picture(&mut cascaded);
    let maps = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("cascades"),
        size: wgpu::Extent3d {
            width: MAP,
            height: MAP,
            depth_or_array_layers: 2,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Depth32Float,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let layer = maps.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2),
        base_array_layer: 1,
        array_layer_count: Some(1),
        ..Default::default()
    });
    let array = maps.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    let cascade = reversed(light);
    let target = LightViewTarget {
        pancake: true,
        caster_lod_scale: shadows.caster_lod_scale,
        ..LightViewTarget::default()
    };
    let screen = Offscreen::new(&gpu.device, SIZE).unwrap();
    cascaded
        .prepare(SIZE, &camera, &[&crowd], &[&model])
        .unwrap();
    cascaded
        .prepare_light_views(
            &target,
            &[LightView {
                clip_from_world: cascade,
            }],
            &[&crowd],
            &[&model],
        )
        .unwrap();
    draw_into(&gpu, &cascaded, &layer);
    let view_from_world = camera.view_from_world;
    let texel = 2.0 / (cascade.row(0).truncate().length() * MAP as f32);
    let mut uniforms = throng_render::uniforms::CascadeUniforms {
        view_z: view_from_world.row(2).to_array(),
        direction_to_light: cascaded
            .options()
            .lighting
            .direction
            .normalize()
            .extend(0.0)
            .to_array(),
        // Bevy's default biases: 1.8 texels along the normal, 0.02 towards
        // the light.
        params: [1.8, 0.02, 0.2, 1.0],
        ..Default::default()
    };
    uniforms.cascades[0] = throng_render::uniforms::ShadowCascade {
        clip_from_world: cascade.to_cols_array_2d(),
        far_bound: 1e6,
        texel_size: texel,
        layer: 1,
        pad: 0,
    };
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    cascaded.set_cascades(&array, &uniforms).unwrap();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    cascaded.encode(&mut encoder, &screen.view);
    gpu.queue.submit([encoder.finish()]);
    let with_cascades = screen.read(&gpu.device, &gpu.queue).unwrap();
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "wgpu validation error"
    );

    let own_mask = darker(&with_own, &lit);
    let cascade_mask = darker(&with_cascades, &lit);
    let shadowed = own_mask.iter().filter(|d| **d).count();
    let missed = own_mask
        .iter()
        .zip(&cascade_mask)
        .filter(|(o, c)| **o && !**c)
        .count();
    let unset_count = darker(&unset, &lit).iter().filter(|d| **d).count();
    let signal = throng_render::image_diff::diff(&lit, &with_own);
    let error = throng_render::image_diff::diff(&with_cascades, &with_own);
    println!(
        "{}: the own map shadows {shadowed} pixels, the cascades {} ({missed} of the own map's missed); before set_cascades {unset_count}; mean level difference from the own map's picture: cascaded {:.3}, unshadowed {:.3}",
        gpu.adapter_summary(),
        cascade_mask.iter().filter(|d| **d).count(),
        error.mean,
        signal.mean
    );
    assert_eq!(unset_count, 0, "no cascades set: the crowd is lit");
    assert!(
        shadowed > 300,
        "the giant shadows the crowd: {shadowed} pixels"
    );
    assert!(
        missed as f64 <= MISSED_TOLERANCE * shadowed as f64,
        "the cascades leave {missed} of the own map's {shadowed} shadowed pixels lit"
    );
    assert!(
        error.mean * NEARER <= signal.mean,
        "the cascaded picture is {:.3} levels from the own map's, the unshadowed {:.3}",
        error.mean,
        signal.mean
    );
}
