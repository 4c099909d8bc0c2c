//! What a [`Renderer`](crate::Renderer) is asked for: the record path,
//! lighting, shadows, MSAA, a custom fragment stage, the pose cache
//! ([`RendererOptions`]), and what a frame reports back ([`FrameStats`]).

use glam::Vec3;
use throng_core::limits::PACKAGE_WIDTH;

use crate::base::fog::Fog;
use crate::base::uniforms::FogUniforms;
use crate::base::uniforms::FrameUniforms;

/// Depth buffer format of every pass the crowd draws in.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// How instance records reach the vertex shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordPath {
    /// Uniform packages of at most [`PACKAGE_WIDTH`] records; one draw per
    /// package and submesh.
    Packaged,
    /// One storage buffer; one draw per group and submesh.
    Unbounded,
    /// Instances live on the GPU; a compute pass culls them, picks their
    /// LODs and writes the records (into a storage buffer, as
    /// [`RecordPath::Unbounded`]) and the indirect draws' arguments; one
    /// indirect draw per (model, LOD, fading, submesh).
    GpuDriven,
}

impl RecordPath {
    /// The path's one-word name: `packaged`, `unbounded`, `gpu-driven`
    /// (the web page's title contract).
    pub fn name(self) -> &'static str {
        match self {
            RecordPath::Packaged => "packaged",
            RecordPath::Unbounded => "unbounded",
            RecordPath::GpuDriven => "gpu-driven",
        }
    }
}

impl std::fmt::Display for RecordPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.name();
        match self {
            RecordPath::Packaged => write!(f, "{name} ({PACKAGE_WIDTH} per draw, uniform)"),
            RecordPath::Unbounded => write!(f, "{name} (storage)"),
            RecordPath::GpuDriven => write!(f, "{name} (compute cull, indirect draws)"),
        }
    }
}

/// Which [`RecordPath`] to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PathChoice {
    /// GPU-driven where the adapter and device can, else unbounded where
    /// the vertex stage can read storage buffers, else packaged.
    #[default]
    Auto,
    /// Always packaged.
    Packaged,
    /// Unbounded; an error where unsupported.
    Unbounded,
    /// GPU-driven; an error where unsupported.
    GpuDriven,
}

impl PathChoice {
    /// Every choice, `Auto` first.
    pub const ALL: [PathChoice; 4] = [
        PathChoice::Auto,
        PathChoice::Packaged,
        PathChoice::Unbounded,
        PathChoice::GpuDriven,
    ];

    /// The name command lines use (`--path`).
    pub fn name(self) -> &'static str {
        match self {
            PathChoice::Auto => "auto",
            PathChoice::Packaged => "packaged",
            PathChoice::Unbounded => "unbounded",
            PathChoice::GpuDriven => "gpu-driven",
        }
    }

    /// The choice called `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Directional light, ambient hemisphere, shading model and distance fog.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lighting {
    /// Direction towards the light (normalised on use).
    pub direction: Vec3,
    /// Light colour (linear): what a white Lambertian surface facing the
    /// light reflects of it.
    pub color: Vec3,
    /// Ambient light from the sky, above (linear).
    pub ambient: Vec3,
    /// Ambient light from the ground, below (linear): a hemisphere with
    /// [`Self::ambient`]; equal to it for a constant ambient.
    pub ground: Vec3,
    /// How surfaces answer the light.
    pub shading: Shading,
    /// Distance fog (`None`: clear air).
    pub fog: Option<Fog>,
}

impl Default for Lighting {
    fn default() -> Self {
        Self {
            direction: Vec3::new(-0.6, 0.9, 0.25),
            color: Vec3::splat(0.75),
            ambient: Vec3::new(0.3, 0.31, 0.33),
            ground: Vec3::new(0.2, 0.18, 0.16),
            shading: Shading::Pbr,
            fog: None,
        }
    }
}

/// The shading model of Throng's own fragment stage (`shaders/pbr.wgsl`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shading {
    /// glTF's metallic-roughness material: GGX specular and Lambertian
    /// diffuse in the directional light, the ambient hemisphere diffuse and
    /// specular, normal, occlusion and emissive maps.
    #[default]
    Pbr = 0,
    /// Base colour × (ambient hemisphere + light × n·l): Throng's shading
    /// before PBR, the cheaper floor the benchmarks compare it with.
    Lambert = 1,
}

/// How the depth buffer the crowd draws into counts distance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DepthConvention {
    /// 0 at the near plane, 1 at the far one; cleared to 1, nearer is
    /// less. Throng's own cameras ([`throng_crowd::camera::Camera::look_at`]).
    #[default]
    Standard,
    /// Reverse Z: 1 at the near plane, 0 at the far one (or at infinity);
    /// cleared to 0, nearer is greater. Bevy's cameras, and many engines',
    /// whose depth buffer a caller-owned pass shares with the crowd.
    Reversed,
}

impl DepthConvention {
    /// The crowd's depth test: nearer or equal, so that a colour pass
    /// passes where the crowd's prepass (`Renderer::draw_prepass`) wrote
    /// the same depth (Bevy's main pass tests the same way).
    pub fn compare(self) -> wgpu::CompareFunction {
        match self {
            DepthConvention::Standard => wgpu::CompareFunction::LessEqual,
            DepthConvention::Reversed => wgpu::CompareFunction::GreaterEqual,
        }
    }

    /// The depth of nothing drawn: what a pass clears its depth to.
    pub fn clear(self) -> f32 {
        match self {
            DepthConvention::Standard => 1.0,
            DepthConvention::Reversed => 0.0,
        }
    }
}

/// Renderer options.
#[derive(Clone, Debug, PartialEq)]
pub struct RendererOptions {
    /// Record path.
    pub path: PathChoice,
    /// MSAA samples (1 or 4).
    pub sample_count: u32,
    /// Clear colour.
    pub clear_color: wgpu::Color,
    /// Lighting.
    pub lighting: Lighting,
    /// Cull instances outside the view frustum (by their clip's bounds).
    pub frustum_culling: bool,
    /// Skin vertices (false draws the bind pose with no skinning work: the
    /// benchmarks' static floor).
    pub skinning: bool,
    /// Tint instances by their LOD (`throng_crowd::crowd::LOD_TINTS`).
    pub lod_tints: bool,
    /// Directional-light shadows (`None`: off).
    pub shadows: Option<ShadowOptions>,
    /// The crowd receives a caller's cascaded shadow maps instead, drawn
    /// in this depth convention (`Renderer::set_cascades`: an engine's
    /// directional cascades, Bevy's: [`DepthConvention::Reversed`]),
    /// sampled as Bevy samples them; needs `shadows` `None`.
    pub cascades: Option<DepthConvention>,
    /// A fragment stage of the user's own for the crowd's colour pipelines
    /// (`None`: Throng's shading). The vertex stage stays Throng's skinning
    /// `vs_main`.
    pub fragment: Option<CustomFragment>,
    /// The pose cache on the storage paths: each baked frame of a (model,
    /// LOD) skinned once, the vertex stage blending two cached poses
    /// instead of skinning every vertex of every instance
    /// ([`crate::pose_cache`]). `None` skins every vertex from the bone
    /// texture (the path before the cache). The packaged path never caches.
    pub pose_cache: Option<PoseCacheOptions>,
    /// Further colour targets, at fragment outputs 1, 2, …, that a
    /// [`RendererOptions::fragment`] writes beside the renderer's own
    /// (output 0): one pass fills them all, for captures that need several
    /// images of the same draws ([`crate::Renderer::render_targets`]). Only
    /// with a custom fragment; not blended.
    pub extra_targets: Vec<wgpu::TextureFormat>,
    /// The depth convention of the camera and the depth buffer the crowd
    /// is drawn against (the shadow map is the renderer's own and keeps
    /// the standard one).
    pub depth: DepthConvention,
    /// Two-phase occlusion culling on the GPU-driven path
    /// (docs/design/occlusion.md): instances hidden behind what was drawn
    /// first are not drawn. Applies to frames the renderer records its own
    /// passes for ([`crate::Renderer::render`], [`crate::Renderer::encode`]
    /// after [`crate::Renderer::prepare`]); a frame drawn into a caller's
    /// pass ([`crate::Renderer::prepare_draws`]) is culled by the frustum
    /// only. Ignored on the other paths and where the device cannot build
    /// the depth pyramid.
    pub occlusion: bool,
    /// The cheaper far field: impostors whose projected size (sphere
    /// radius over distance, in units of the half-height of the view at
    /// that distance, as LOD sizes are) is below this sample the one view
    /// nearest their direction instead of blending three — a third of the
    /// vertex stage's per-view work and of the texture reads, for
    /// instances a few pixels tall. 0 blends three views at every size.
    pub impostor_one_view_size: f32,
    /// On the GPU-driven path, leave out of an instance's draws the
    /// submeshes its look hides, for the masks that are its model's look
    /// classes (`throng_crowd`'s `look_classes`): their vertices are never
    /// shaded. False draws every submesh and moves the hidden ones' vertices
    /// out of view, as the other paths do (the outfits benchmark's
    /// baseline). Default true.
    pub cull_hidden_parts: bool,
}

impl RendererOptions {
    /// The default [`Self::impostor_one_view_size`]: a sphere of 1 % of
    /// the view's half-height (5 pixels of radius at 1080 lines).
    pub const IMPOSTOR_ONE_VIEW_SIZE: f32 = 0.01;
}

impl Default for RendererOptions {
    fn default() -> Self {
        Self {
            path: PathChoice::Auto,
            sample_count: 1,
            clear_color: wgpu::Color {
                r: 0.55,
                g: 0.62,
                b: 0.70,
                a: 1.0,
            },
            lighting: Lighting::default(),
            frustum_culling: true,
            skinning: true,
            lod_tints: false,
            shadows: Some(ShadowOptions::default()),
            cascades: None,
            fragment: None,
            pose_cache: Some(PoseCacheOptions::default()),
            extra_targets: Vec::new(),
            depth: DepthConvention::Standard,
            cull_hidden_parts: true,
            occlusion: true,
            impostor_one_view_size: Self::IMPOSTOR_ONE_VIEW_SIZE,
        }
    }
}

/// How much GPU memory the pose cache may take ([`crate::pose_cache`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoseCacheOptions {
    /// Most bytes the caches of all models may hold together. A (model,
    /// LOD) that does not fit is drawn by skinning every vertex, as with
    /// the cache off, and counted in [`FrameStats::pose_fallback_draws`];
    /// never an error. `u64::MAX` caches whatever the device can bind.
    pub budget: u64,
}

impl PoseCacheOptions {
    /// The default budget: 256 MiB, 17 times what the bundled Fox's three
    /// mesh LODs need at full fill (15.2 MiB), more than any bundled
    /// model's (docs/BENCHMARKS.md, "The pose cache").
    pub const DEFAULT_BUDGET: u64 = 256 << 20;
}

impl Default for PoseCacheOptions {
    fn default() -> Self {
        Self {
            budget: Self::DEFAULT_BUDGET,
        }
    }
}

/// A fragment shader of the user's own, composed with Throng's WGSL modules
/// ([`crate::base::shader::compose::compose`] with the renderer's record path) into the
/// program of the crowd's colour pipelines.
///
/// `source` declares what it uses by import lines, at least
/// `// #import draw` (which brings `vs_main`, `VertexOut`, the `frame` and
/// `material` bindings, `shade()`, and the frame's distance fog for
/// `fog_apply(frame.fog, rgb, frame.eye.xyz, world_position,
/// frame.light_dir.xyz)`, which `shade()` applies and a custom stage should
/// apply last); `// #import shadow_receive` adds the
/// shadow map (`shadow_map`, `shadow_sampler`, `shadow`) for
/// `shadow_filter()`, and needs [`RendererOptions::shadows`] on. The entry
/// point takes `VertexOut` (and any builtins) and writes `@location(0)`.
/// The override `FLAT_SHADING` (from `draw`) is set per submesh.
///
/// A source that does not compose, is not valid WGSL, or whose entry point
/// does not fit the crowd's pipeline layout is a [`RenderError`](crate::RenderError) from
/// [`Renderer::new`](crate::Renderer::new).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomFragment {
    /// A name for the source in errors, e.g. its file name.
    pub file: String,
    /// WGSL with `// #import` lines naming Throng modules.
    pub source: String,
    /// The fragment entry point.
    pub entry: String,
}

/// Shadows of the directional light: one orthographic shadow map fitted to
/// the instances in view each frame. Casters are culled against the light's
/// volume, not the camera's, so an instance out of view still casts into it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShadowOptions {
    /// Side of the square shadow map, in texels.
    pub map_size: u32,
    /// Darkness of a full shadow: 1 leaves only the ambient light.
    pub strength: f32,
    /// Depth bias in the map's [0, 1] depth units (against self-shadowing).
    pub bias: f32,
    /// Shadows by LOD: casters choose their LOD as if their projected size
    /// were this much of the camera's (in `(0, 1]`; 1 casts each instance
    /// at the LOD it is drawn with). Below 1, casters switch to coarser
    /// meshes — and to the impostor's caster — closer to the camera than
    /// the instances themselves do: a shadow is a blurred silhouette in a
    /// map of fixed size, where a coarser LOD costs little. The default,
    /// [`Self::DEFAULT_CASTER_LOD_SCALE`], is one LOD step for a chain whose
    /// sizes halve.
    pub caster_lod_scale: f32,
    /// Occlusion culling from the light as well (with
    /// [`RendererOptions::occlusion`]): the shadow map drawn in two phases,
    /// the casters hidden from the light behind those drawn first left
    /// out. Off by default: on a crowd over open ground nearly nothing
    /// hides another from a high light (gaps between the instances show
    /// the empty map behind), and the map's depth pyramid costs a
    /// reduction of the whole map (docs/BENCHMARKS.md, "Occlusion
    /// culling"); worth it where tall things stand between the light and
    /// the crowd.
    pub occlusion: bool,
}

impl ShadowOptions {
    /// The default [`Self::caster_lod_scale`].
    pub const DEFAULT_CASTER_LOD_SCALE: f32 = 0.5;
}

impl Default for ShadowOptions {
    fn default() -> Self {
        Self {
            map_size: 2048,
            strength: 0.75,
            bias: 0.002,
            caster_lod_scale: Self::DEFAULT_CASTER_LOD_SCALE,
            occlusion: false,
        }
    }
}

/// What a frame drew.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Live instances in all crowds.
    pub instances: u32,
    /// Instances that passed culling (records written): in view and, with
    /// occlusion culling, not occluded.
    pub visible: u32,
    /// Instances in view that occlusion culling found hidden and did not
    /// draw ([`RendererOptions::occlusion`]; 0 without it).
    pub occluded: u32,
    /// Draw calls.
    pub draws: u32,
    /// Record slices bound: packages on the packaged path, groups on the
    /// unbounded path.
    pub packages: u32,
    /// Triangles submitted.
    pub triangles: u64,
    /// Vertices shaded in the crowd pass: per instance drawn, the distinct
    /// vertices of each submesh of its LOD (an ideal post-transform cache;
    /// an impostor's quad is 4).
    pub vertices: u64,
    /// Instances drawn as impostors.
    pub impostors: u32,
    /// Submeshes not drawn because their instance hides them: per instance
    /// drawn in a look class, the submeshes its mask leaves out (the
    /// GPU-driven path; `throng_crowd`'s look classes). The other paths
    /// draw hidden submeshes and move their vertices out of view: 0.
    pub parts_culled: u64,
    /// Bytes of records uploaded (crowd and shadow passes).
    pub record_bytes: u64,
    /// Instances drawn into the shadow map (in the light's view and, with
    /// occlusion culling, not hidden from it).
    pub shadow_casters: u32,
    /// Draw calls of the shadow pass.
    pub shadow_draws: u32,
    /// Casters in the light's view that occlusion culling found hidden from
    /// the light and did not draw.
    pub shadow_occluded: u32,
    /// Poses held by the pose cache: one per baked frame of each cached
    /// (model, LOD).
    pub cached_poses: u64,
    /// Bytes the pose cache holds on the GPU.
    pub pose_cache_bytes: u64,
    /// Bytes of the distinct bone textures the frame's models bind.
    pub bone_bytes: u64,
    /// Bytes the frame's models' bone textures would take more if none
    /// were shared ([`crate::GpuModel::upload_sharing`]).
    pub shared_bone_bytes: u64,
    /// Milliseconds this frame spent filling the pose cache for models met
    /// for the first time (encoding, the GPU's work and the wait for it);
    /// 0 once every model is cached.
    pub pose_fill_ms: f64,
    /// Mesh draws (both passes) skinned per vertex although the pose cache
    /// is on, because their (model, LOD) did not fit its budget or the
    /// device's storage-binding limit. Draws of instances with animation
    /// layers (the palette pre-pass) are not counted.
    pub pose_fallback_draws: u32,
    /// Milliseconds the frame spent inside `queue.submit` (the renderer's
    /// own submissions while preparing and drawing it). On a software
    /// adapter (lavapipe) the GPU's work runs there, so the CPU time of
    /// Throng's own preparation is the frame's CPU time less this.
    pub submit_ms: f64,
}

impl FrameUniforms {
    /// The frame's constants for `camera` under `lighting` (the one place
    /// [`Lighting`] becomes the WGSL `Frame`).
    pub fn new(camera: &throng_crowd::camera::Camera, lighting: &Lighting) -> Self {
        let l = lighting;
        Self {
            clip_from_world: camera.clip_from_world().to_cols_array_2d(),
            eye: camera.eye.extend(1.0).to_array(),
            light_dir: l
                .direction
                .normalize_or(glam::Vec3::Y)
                .extend(0.0)
                .to_array(),
            light_color: l.color.extend(1.0).to_array(),
            ambient: l.ambient.extend(1.0).to_array(),
            ground: l.ground.extend(1.0).to_array(),
            fog: FogUniforms::new(l.fog.as_ref()),
            shading: l.shading as u32,
            impostor_one_view_size: RendererOptions::IMPOSTOR_ONE_VIEW_SIZE,
            pad: [0; 2],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_names_round_trip() {
        for c in PathChoice::ALL {
            assert_eq!(PathChoice::from_name(c.name()), Some(c));
        }
        assert_eq!(PathChoice::ALL[0], PathChoice::default());
        assert_eq!(PathChoice::from_name("gpu"), None);
    }
}
