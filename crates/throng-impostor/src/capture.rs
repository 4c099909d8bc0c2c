//! Capturing an impostor atlas: every (clip, frame, view) cell of an
//! [`AtlasPlan`] rendered by Throng's own renderer.
//!
//! One crowd per atlas layer holds one instance per cell, posed at its
//! clip and frame time, and placed so that a single orthographic camera
//! looking down −Z sees it from its cell's view direction, scaled so that
//! its clip's bounding sphere fills the cell ([`cell_transform`]). One
//! render per layer, with the crowd's skinning and the fragment stage of
//! `capture.wgsl` writing its targets at once: unlit colour, the normal in
//! the view's basis (octahedral) with the ambient occlusion, and,
//! where the plan has it, the surface (metalness, roughness, glow and
//! material; [`ImpostorAtlas::surface`]), each vertex skinned and each
//! triangle rasterised once for every image. All are multisampled over a
//! transparent clear, so each texel is premultiplied by its coverage. All
//! are then stored in the plan's codec (`encode.rs`).

use glam::{Mat3, Mat4, Vec3};
use throng_core::impostor::{AtlasPlan, ImpostorAtlas, TextureCodec, view_basis};
use throng_core::math::Aabb;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, CrowdError, ModelHandle, Spawn};
use throng_render::{
    CustomFragment, Gpu, GpuModel, Offscreen, PathChoice, RenderError, Renderer, RendererOptions,
    wgpu,
};

/// The capture's fragment stages.
const CAPTURE_WGSL: &str = include_str!("capture.wgsl");

/// MSAA samples of the capture (coverage at the silhouette's edges).
const SAMPLES: u32 = 4;

/// Why a capture failed.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The renderer or the device refused.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The crowd refused an instance.
    #[error(transparent)]
    Crowd(#[from] CrowdError),
    /// The plan's layers cannot be stored in its codec (BC7 needs whole
    /// 4 × 4 blocks).
    #[error(
        "impostor layers of {}² texels cannot be stored as {}",
        .0.layer_size,
        .0.codec.name()
    )]
    Codec(AtlasPlan),
    /// The plan does not match the model.
    #[error("the impostor plan has {plan} clips, the model {model}")]
    Clips {
        /// Clips in the plan.
        plan: u32,
        /// Clips in the model.
        model: usize,
    },
}

/// Clip time of capture `frame` of a clip of `duration` seconds with
/// `frames` captures: evenly over the clip, the first at 0 (a looping clip
/// wraps from the last capture to the first).
pub fn frame_time(duration: f32, frame: u32, frames: u32) -> f32 {
    duration * frame as f32 / frames.max(1) as f32
}

/// The bounding sphere a clip's cells are framed on.
fn sphere(bounds: &Aabb) -> (Vec3, f32) {
    (bounds.center(), bounds.radius().max(1e-6))
}

/// World transform of the instance of cell `(clip, frame, view)` in its
/// layer's capture: model space turned into view `view`'s basis, scaled so
/// that the clip's bounding sphere (`center`, `radius`) spans the cell, and
/// moved to the cell, in a world where one unit is one texel, x right, y up
/// from the layer's bottom edge and the camera on +Z.
pub fn cell_transform(
    plan: &AtlasPlan,
    clip: u32,
    frame: u32,
    view: u32,
    center: Vec3,
    radius: f32,
) -> Mat4 {
    let [x, y, z] = view_basis(plan.views.direction(view));
    let (_, col, row) = plan.cell_origin(clip, frame, view);
    let half = plan.cell as f32 * 0.5;
    let cell_center = Vec3::new(
        col as f32 + half,
        plan.layer_size as f32 - (row as f32 + half),
        0.0,
    );
    let to_view = Mat4::from_mat3(Mat3::from_cols(x, y, z).transpose());
    Mat4::from_translation(cell_center)
        * Mat4::from_scale(Vec3::splat(half / radius))
        * to_view
        * Mat4::from_translation(-center)
}

/// The orthographic camera over a whole layer: looking down −Z, depth
/// spanning a cell's sphere (0 at its front, 1 at its back).
fn layer_camera(plan: &AtlasPlan) -> Camera {
    let size = plan.layer_size as f32;
    let half = plan.cell as f32 * 0.5;
    // The eye is a cell above the plane of the cells' centres.
    let distance = plan.cell as f32;
    let eye = Vec3::new(size * 0.5, size * 0.5, distance);
    Camera {
        view_from_world: Mat4::from_translation(-eye),
        clip_from_view: glam::camera::rh::proj::directx::orthographic(
            -size * 0.5,
            size * 0.5,
            -size * 0.5,
            size * 0.5,
            distance - half,
            distance + half,
        ),
        eye,
        // No perspective: every instance takes LOD 0.
        fov_y: 0.0,
    }
}

/// The crowd of one layer: one instance per cell the layer holds.
fn layer_crowd(handle: &ModelHandle, plan: &AtlasPlan, layer: u32) -> Result<Crowd, CaptureError> {
    let model = handle.model();
    let mut crowd = Crowd::new();
    let id = crowd.add_model(handle);
    let per_layer = plan.cells_per_layer() as u64;
    let cells = plan.cells();
    let first = layer as u64 * per_layer;
    let views = plan.views.count() as u64;
    for index in first..(first + per_layer).min(cells) {
        let view = (index % views) as u32;
        let frame = ((index / views) % plan.frames as u64) as u32;
        let clip = (index / views / plan.frames as u64) as u32;
        let info = &model.clips[clip as usize];
        let (center, radius) = sphere(&info.bounds);
        crowd.spawn(
            id,
            Spawn {
                transform: cell_transform(plan, clip, frame, view, center, radius),
                clip: Some(clip as usize),
                time: frame_time(info.duration, frame, plan.frames),
                speed: 0.0,
                ..Spawn::default()
            },
        )?;
    }
    Ok(crowd)
}

/// Renders every cell of `plan` for the model of `handle` (uploaded as
/// `model`) on `gpu`.
pub fn capture(
    gpu: &Gpu,
    handle: &ModelHandle,
    model: &GpuModel,
    plan: &AtlasPlan,
) -> Result<ImpostorAtlas, CaptureError> {
    let clips = &handle.model().clips;
    if plan.clips as usize != clips.len() {
        return Err(CaptureError::Clips {
            plan: plan.clips,
            model: clips.len(),
        });
    }
    let linear = wgpu::TextureFormat::Rgba8Unorm;
    let extra = if plan.surface { 2 } else { 1 };
    // The surface's material codes spread over the model's palette columns.
    let materials = throng_core::variety::column_count(handle.model());
    let options = |path| RendererOptions {
        path,
        sample_count: SAMPLES,
        clear_color: wgpu::Color::TRANSPARENT,
        shadows: None,
        fragment: Some(CustomFragment {
            file: "capture.wgsl".into(),
            source: format!("{CAPTURE_WGSL}\nconst SURFACE_MATERIALS: u32 = {materials}u;\n"),
            entry: if plan.surface {
                "fs_capture_surface"
            } else {
                "fs_capture"
            }
            .into(),
        }),
        extra_targets: vec![linear; extra],
        ..RendererOptions::default()
    };
    let new = |path| {
        Renderer::new(
            &gpu.adapter,
            &gpu.device,
            &gpu.queue,
            throng_render::OFFSCREEN_FORMAT,
            options(path),
        )
    };
    // One still crowd drawn once per layer: the GPU-driven path's compute
    // passes (mirror, cull, light fit) would be compiled and run for
    // nothing, so the unbounded CPU-record path draws it where the adapter
    // has it (every path draws the same picture).
    let mut renderer = match new(PathChoice::Unbounded) {
        Err(RenderError::Unsupported(_)) => new(PathChoice::Auto)?,
        other => other?,
    };
    let size = (plan.layer_size, plan.layer_size);
    // Colour (sRGB), normal, and the surface where the plan has it.
    let mut targets = vec![Offscreen::new(&gpu.device, size)?];
    for _ in 0..extra {
        targets.push(Offscreen::with_format(&gpu.device, size, linear)?);
    }
    let views: Vec<&wgpu::TextureView> = targets.iter().map(|t| &t.view).collect();
    let camera = layer_camera(plan);
    let image_bytes = TextureCodec::Rgba8.image_bytes(plan.layer_size, plan.layers) as usize;
    let mut images = vec![Vec::with_capacity(image_bytes); targets.len()];
    for layer in 0..plan.layers {
        let crowd = layer_crowd(handle, plan, layer)?;
        renderer.render_targets(&views, size, &camera, &[&crowd], &[model])?;
        for (target, out) in targets.iter().zip(&mut images) {
            out.extend_from_slice(target.read(&gpu.device, &gpu.queue)?.as_raw());
        }
    }
    let encode = |image: &[u8]| {
        crate::encode::encode(plan.codec, image, plan.layer_size, plan.layers)
            .ok_or(CaptureError::Codec(*plan))
    };
    let mut encoded = images
        .iter()
        .map(|i| encode(i))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter();
    let (colour, normal) = (encoded.next().unwrap(), encoded.next().unwrap());
    let surface = encoded.next().unwrap_or_default();
    Ok(ImpostorAtlas {
        plan: *plan,
        screen_size: throng_core::impostor::default_screen_size(plan.cell),
        spheres: clips
            .iter()
            .map(|c| {
                let (center, radius) = sphere(&c.bounds);
                center.extend(radius).to_array()
            })
            .collect(),
        colour,
        normal,
        surface,
    })
}
