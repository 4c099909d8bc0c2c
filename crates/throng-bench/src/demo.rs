//! Demo crowds: a grid of instances with varied clips, phases and tints (or
//! palette rows, sizes and toggles: [`dressed`], [`demo_variety`]), and a
//! camera that frames it. Shared by `throng render`, the viewer and the
//! benchmarks so they all draw the same scene.

use glam::{Mat4, Vec3, Vec4};
use throng_core::math::Aabb;
use throng_core::variety::{Palette, Variety, column_count};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, CrowdError, ModelHandle, ModelId, Spawn};

/// How to fill a grid.
#[derive(Clone, Debug, PartialEq)]
pub struct GridOptions {
    /// Instances.
    pub count: u32,
    /// Play this clip on every instance (`None`: clip `i % clips`).
    pub clip: Option<usize>,
    /// Start every instance at this time (`None`: a phase per instance).
    pub time: Option<f32>,
    /// Give instances a few different tints.
    pub tints: bool,
    /// Spacing as a multiple of the model's footprint.
    pub spacing: f32,
    /// Per-instance palette rows, sizes and toggles (the model must have
    /// the palette rows it picks among: [`dressed`]).
    pub variety: Option<Variety>,
}

impl Default for GridOptions {
    fn default() -> Self {
        Self {
            count: 16,
            clip: None,
            time: None,
            tints: true,
            spacing: 1.25,
            variety: None,
        }
    }
}

/// Seed of the demo crowds' palette and per-instance picks (`throng render
/// --variety`, the bench's `varied` mode, the viewer).
pub const VARIETY_SEED: u64 = 25;

/// Rows of the demo crowds' variant palette.
pub const DEMO_VARIANTS: u32 = 8;

/// Sizes of the demo crowds' instances with variety (uniform scale).
pub const DEMO_SCALE: [f32; 2] = [0.85, 1.15];

/// `handle`'s model wearing a generated palette of [`DEMO_VARIANTS`] rows
/// (`Palette::generated`: row 0 as baked, the others a colour per
/// material).
pub fn dressed(handle: &ModelHandle, seed: u64) -> ModelHandle {
    let columns = column_count(handle.model());
    let palette = Palette::generated(columns, DEMO_VARIANTS as usize, seed)
        .expect("a generated palette of the demo's size is valid");
    handle
        .with_palette(palette)
        .expect("a palette generated for the model's materials fits it")
}

/// The demo crowds' variety: every row of [`dressed`]'s palette, sizes in
/// [`DEMO_SCALE`], and `toggles` (submesh, chance of hiding it).
pub fn demo_variety(seed: u64, toggles: Vec<(u32, f32)>) -> Variety {
    Variety {
        variants: DEMO_VARIANTS,
        scale: DEMO_SCALE,
        toggles,
        seed,
    }
}

pub use throng_demo::outfits::{DEMO_OUTFITS, outfit_look, outfitted, wear_outfits};

/// A few tints, gentle enough to keep textures readable.
pub const TINTS: [Vec4; 4] = [
    Vec4::new(1.0, 1.0, 1.0, 1.0),
    Vec4::new(1.0, 0.75, 0.7, 1.0),
    Vec4::new(0.7, 0.9, 1.0, 1.0),
    Vec4::new(0.8, 1.0, 0.7, 1.0),
];

pub use throng_demo::walkers::unit_hash;

/// A new crowd holding `handle`'s model and a grid of it (see
/// [`spawn_grid`]): the crowd, the model's id and the grid's bounds.
pub fn grid_crowd(
    handle: &ModelHandle,
    opts: &GridOptions,
) -> Result<(Crowd, ModelId, Aabb), CrowdError> {
    let mut crowd = Crowd::new();
    let model = crowd.add_model(handle);
    let bounds = spawn_grid(&mut crowd, model, opts)?;
    Ok((crowd, model, bounds))
}

/// Spawns `opts.count` instances of `model` on a square grid in the xz plane,
/// centred on the origin, and returns the world box that holds them in every
/// frame of their clips. More instances than the host's memory can hold are
/// refused before any is spawned ([`Crowd::try_reserve`]).
pub fn spawn_grid(
    crowd: &mut Crowd,
    model: ModelId,
    opts: &GridOptions,
) -> Result<Aabb, CrowdError> {
    spawn_mixed_grid(crowd, &[model], opts)
}

/// [`spawn_grid`] of a mixed crowd: instance `i` is of `models[i mod n]`,
/// the grid spaced for the largest of them. `opts.clip`, where given, must
/// be a clip of every model (a mixed crowd of bodies sharing one animation
/// library); otherwise each instance plays clip `i` modulo its model's.
pub fn spawn_mixed_grid(
    crowd: &mut Crowd,
    models: &[ModelId],
    opts: &GridOptions,
) -> Result<Aabb, CrowdError> {
    crowd.try_reserve(opts.count as usize)?;
    struct Kind {
        id: ModelId,
        clip_bounds: Vec<Aabb>,
        durations: Vec<f32>,
        rest: Aabb,
    }
    let mut kinds = Vec::with_capacity(models.len());
    let mut extent = Vec3::splat(1e-3);
    for &id in models {
        let m = crowd.model(id)?;
        extent = extent.max(m.bounds.max - m.bounds.min);
        kinds.push(Kind {
            id,
            clip_bounds: m.clips.iter().map(|c| c.bounds).collect(),
            durations: m.clips.iter().map(|c| c.duration).collect(),
            rest: m.frame_bounds[0],
        });
    }
    if kinds.is_empty() {
        return Ok(Aabb::EMPTY);
    }
    // Per-axis spacing: long models (a fox) sit close side by side.
    let (step_x, step_z) = (extent.x * opts.spacing, extent.z * opts.spacing);
    let side = (opts.count as f32).sqrt().ceil().max(1.0) as u32;
    let mut world = Aabb::EMPTY;
    for i in 0..opts.count {
        let kind = &kinds[i as usize % kinds.len()];
        let (gx, gz) = ((i % side) as f32, (i / side) as f32);
        let half = (side - 1) as f32 * 0.5;
        let offset = Vec3::new((gx - half) * step_x, 0.0, (gz - half) * step_z);
        let clip = match (opts.clip, kind.durations.len()) {
            (Some(c), _) => Some(c),
            (None, 0) => None,
            (None, n) => Some(i as usize % n),
        };
        let duration = |c: usize| kind.durations.get(c).copied().unwrap_or(0.0);
        let time = opts
            .time
            .unwrap_or_else(|| clip.map_or(0.0, |c| unit_hash(i) * duration(c)));
        let mut spawn = Spawn {
            transform: Mat4::from_translation(offset),
            clip,
            time,
            tint: if opts.tints {
                TINTS[(i as usize / 2 + i as usize) % TINTS.len()]
            } else {
                Vec4::ONE
            },
            ..Spawn::default()
        };
        if let Some(v) = &opts.variety {
            spawn = spawn.varied(v, i as u64);
        }
        crowd.spawn(kind.id, spawn)?;
        let b = clip
            .and_then(|c| kind.clip_bounds.get(c))
            .copied()
            .unwrap_or(kind.rest);
        world = world.union(&b.transformed(&spawn.transform));
    }
    Ok(world)
}

/// Where the camera of a demo crowd stands (`throng bench --camera`,
/// `throng render --camera`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CameraChoice {
    /// Framing the whole grid from the front-right, above.
    #[default]
    Framing,
    /// On the ground at the grid's front edge, looking across it
    /// ([`ground_camera`]).
    Ground,
    /// At eye height at the grid's front edge, looking along it: the game
    /// camera in a street of people ([`eye_camera`]).
    Eye,
}

impl CameraChoice {
    /// Every choice.
    pub const ALL: [CameraChoice; 3] = [
        CameraChoice::Framing,
        CameraChoice::Ground,
        CameraChoice::Eye,
    ];

    /// The name used on the command line and in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            CameraChoice::Framing => "framing",
            CameraChoice::Ground => "ground",
            CameraChoice::Eye => "eye",
        }
    }

    /// The choice called `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The camera on a crowd in `bounds` for a viewport of `aspect`.
    pub fn camera(self, bounds: &Aabb, aspect: f32) -> Camera {
        match self {
            CameraChoice::Framing => framing_camera(bounds, aspect),
            CameraChoice::Ground => ground_camera(bounds, aspect),
            CameraChoice::Eye => eye_camera(bounds, aspect),
        }
    }
}

/// A camera standing at the front edge of a crowd on the ground, as a
/// person (or the viewer's fly camera) would: the eye two crowd heights up,
/// one crowd height in front of `bounds`, looking across the crowd at its
/// far edge's feet, 40° vertical field of view, far plane past the far
/// corner. Most of a large crowd is then far away (coarse LODs and
/// impostors) while the front rows are close (LOD 0): the LOD chain's
/// headline view.
pub fn ground_camera(bounds: &Aabb, aspect: f32) -> Camera {
    let height = (bounds.max.y - bounds.min.y).max(1e-3);
    let center = bounds.center();
    let eye = Vec3::new(center.x, bounds.min.y + 2.0 * height, bounds.max.z + height);
    let target = Vec3::new(center.x, bounds.min.y, bounds.min.z);
    crowd_camera(bounds, aspect, eye, target)
}

/// The ground and eye cameras' projection: from `eye` towards `target`,
/// 40° vertical field of view, the far plane past `bounds`' far corner,
/// the near plane a twentieth of a crowd height (within the depth
/// buffer's range of the far one).
fn crowd_camera(bounds: &Aabb, aspect: f32, eye: Vec3, target: Vec3) -> Camera {
    let height = (bounds.max.y - bounds.min.y).max(1e-3);
    let far = (eye - Vec3::new(bounds.min.x, bounds.min.y, bounds.min.z)).length() * 1.05;
    Camera::look_at(
        eye,
        target,
        Vec3::Y,
        40f32.to_radians(),
        aspect,
        (height * 0.05).min(far * 1e-4).max(1e-4),
        far,
    )
}

/// Where [`eye_camera`] stands, in crowd heights: half of one, below the
/// tops of the front rows. (With the eye at a full crowd height the top of
/// every instance lies on the horizon, where nothing in front can hide it:
/// on the 100k grid none was occluded, at 0.9 of it 2,278 of 100k, at half
/// 84,539; docs/BENCHMARKS.md, "Occlusion culling".)
pub const EYE_HEIGHT: f32 = 0.5;

/// A camera at eye height in a crowd: [`EYE_HEIGHT`] of a crowd height
/// above the ground, one crowd height in front of `bounds`' front edge,
/// looking level along the crowd, 40° vertical field of view, far plane
/// past the far corner. The front rows fill the lower half of the view and
/// hide most of what stands behind them: occlusion culling's headline view.
pub fn eye_camera(bounds: &Aabb, aspect: f32) -> Camera {
    let height = (bounds.max.y - bounds.min.y).max(1e-3);
    let center = bounds.center();
    let y = bounds.min.y + EYE_HEIGHT * height;
    let eye = Vec3::new(center.x, y, bounds.max.z + height);
    let target = Vec3::new(center.x, y, bounds.min.z);
    crowd_camera(bounds, aspect, eye, target)
}

/// A camera looking at `bounds` from the front-right, above.
pub fn framing_camera(bounds: &Aabb, aspect: f32) -> Camera {
    Camera::framing(
        bounds,
        Vec3::new(0.55, 0.6, 1.0),
        40f32.to_radians(),
        aspect,
    )
}
