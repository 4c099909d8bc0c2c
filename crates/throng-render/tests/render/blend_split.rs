//! `Renderer::draw_opaque` and `Renderer::draw_blended` split the frame's
//! draws where an engine's opaque and transparent phases split them, on
//! every record path: a crowd of opaque Foxes and half-transparent ones
//! (the same Fox, its material set to alpha blending).
//!
//! - The opaque half alone is the picture of the opaque Foxes alone.
//! - Opaque then blended, in the caller's pass, is `Renderer::draw`'s
//!   picture; blended first is not (the blended Foxes would be drawn over
//!   nothing and hidden by what stands behind them).
//! - `has_blended` says which crowd has blended draws.

use glam::Vec3;
use image::RgbaImage;
use throng_core::BakedModel;
use throng_core::material::AlphaMode;
use throng_crowd::crowd::{Crowd, ModelHandle};
use throng_render::DEPTH_FORMAT;
use throng_render::image_diff::diff;
use throng_render::{Gpu, GpuModel, Offscreen, Renderer, RendererOptions};
use throng_tests::golden::{self as common, assert_images_match};
use throng_tests::require_gpu;
use throng_tests::scenes::{self, EVERY_PATH, Row, View};

const SIZE: (u32, u32) = (160, 96);

/// The Fox with every material alpha-blended at half opacity.
fn glassy(fox: &ModelHandle) -> ModelHandle {
    let mut m: BakedModel = fox.model().clone();
    for material in &mut m.materials {
        material.alpha_mode = AlphaMode::Blend;
        material.base_color_factor.w = 0.5;
    }
    ModelHandle::new(m).unwrap()
}

/// The opaque Foxes: four, at the back.
const BACK: Row = Row {
    first: Vec3::new(-90.0, 0.0, -80.0),
    step: Vec3::new(60.0, 0.0, 0.0),
    clips: 3,
    time_step: 0.2,
};

/// The glassy Foxes: three, in front.
const FRONT: Row = Row {
    first: Vec3::new(-60.0, 0.0, 40.0),
    ..BACK
};

/// Both rows from the front and above.
const VIEW: View = View {
    eye: Vec3::new(0.0, 110.0, 300.0),
    target: Vec3::new(0.0, 30.0, -20.0),
    fov: 45f32.to_radians(),
    depth: (1.0, 5000.0),
};

/// Opaque Foxes in a back row, glassy ones in front of them (if `glass`).
fn crowd(fox: &ModelHandle, glass: Option<&ModelHandle>) -> Crowd {
    let front = glass.into_iter().flat_map(|g| FRONT.of(g, 3));
    scenes::crowd_of(BACK.of(fox, 4).chain(front))
}

/// The crowd drawn into a pass of the test's own, by `draw`.
fn own_pass(
    gpu: &Gpu,
    renderer: &mut Renderer,
    crowd: &Crowd,
    models: &[&GpuModel],
    draw: impl FnOnce(&Renderer, &mut throng_render::wgpu::RenderPass<'_>),
) -> RgbaImage {
    renderer
        .prepare_draws(&VIEW.camera(SIZE), &[crowd], models)
        .unwrap();
    let target = Offscreen::new(&gpu.device, SIZE).unwrap();
    let depth = gpu
        .device
        .create_texture(&throng_render::wgpu::TextureDescriptor {
            label: Some("blend_split depth"),
            size: throng_render::wgpu::Extent3d {
                width: SIZE.0,
                height: SIZE.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: throng_render::wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: throng_render::wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
    let depth_view = depth.create_view(&Default::default());
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.encode_shadows(&mut encoder);
    {
        let mut pass = encoder.begin_render_pass(&throng_render::wgpu::RenderPassDescriptor {
            label: Some("blend_split pass"),
            color_attachments: &[Some(throng_render::wgpu::RenderPassColorAttachment {
                view: &target.view,
                depth_slice: None,
                resolve_target: None,
                ops: throng_render::wgpu::Operations {
                    load: throng_render::wgpu::LoadOp::Clear(renderer.options().clear_color),
                    store: throng_render::wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(throng_render::wgpu::RenderPassDepthStencilAttachment {
                view: &depth_view,
                depth_ops: Some(throng_render::wgpu::Operations {
                    load: throng_render::wgpu::LoadOp::Clear(1.0),
                    store: throng_render::wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        draw(renderer, &mut pass);
    }
    gpu.queue.submit([encoder.finish()]);
    target.read(&gpu.device, &gpu.queue).unwrap()
}

#[test]
fn the_opaque_and_blended_halves_draw_what_draw_draws() {
    let gpu = require_gpu("blend_split");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let glass = glassy(&fox);
    let models = [
        GpuModel::upload(&gpu.device, &gpu.queue, &fox).unwrap(),
        GpuModel::upload(&gpu.device, &gpu.queue, &glass).unwrap(),
    ];
    let models: Vec<&GpuModel> = models.iter().collect();
    let opaque_only = crowd(&fox, None);
    let mixed = crowd(&fox, Some(&glass));
    let dir = std::env::temp_dir().join("throng-blend-split");
    for path in EVERY_PATH {
        let options = RendererOptions {
            path,
            ..RendererOptions::default()
        };
        let mut renderer = scenes::renderer(&gpu, options);
        let alone = own_pass(&gpu, &mut renderer, &opaque_only, &models, |r, p| r.draw(p));
        assert!(
            !renderer.has_blended(),
            "{path:?}: opaque Foxes have no blended draws"
        );
        let all = own_pass(&gpu, &mut renderer, &mixed, &models, |r, p| r.draw(p));
        assert!(
            renderer.has_blended(),
            "{path:?}: the glassy Foxes are blended draws"
        );
        let opaque = own_pass(&gpu, &mut renderer, &mixed, &models, |r, p| {
            r.draw_opaque(p)
        });
        let split = own_pass(&gpu, &mut renderer, &mixed, &models, |r, p| {
            r.draw_opaque(p);
            r.draw_blended(p);
        });
        let wrong = own_pass(&gpu, &mut renderer, &mixed, &models, |r, p| {
            r.draw_blended(p);
            r.draw_opaque(p);
        });
        assert_images_match(&format!("opaque-half-{path:?}"), &alone, &opaque, &dir);
        assert_images_match(&format!("split-{path:?}"), &all, &split, &dir);
        let d = diff(&all, &alone);
        let w = diff(&all, &wrong);
        println!(
            "{path:?}: the glassy Foxes change {} pixels; drawn before the opaque ones, {} pixels differ",
            d.differing, w.differing
        );
        assert!(d.differing > 500, "{path:?}: the glassy Foxes show");
        assert!(
            w.differing > 50,
            "{path:?}: the order of the halves matters"
        );
    }
}
