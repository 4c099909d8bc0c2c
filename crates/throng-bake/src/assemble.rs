//! The assemble stage: the baked model and its report from what the earlier
//! stages made — bones from the palette, the model's bounds from the frame
//! table, errors made relative to the bounding radius (a warning for each
//! clip over the bound), the per-clip summaries, the events of the baked
//! clips.

use glam::Mat4;
use throng_core::layout::TextureLayout;
use throng_core::limits::REST_FRAME;
use throng_core::material::Image;
use throng_core::math::Aabb;
use throng_core::model::{BakedModel, Bone, BoneTexture, ClipError, ClipInfo};

use crate::mesh::{Meshes, Palette};
use crate::options::BakeOptions;
use crate::report::{BakeReport, ClipSummary, ErrorSite, clip_rate};
use crate::sampling::FrameTable;
use crate::scene::Scene;
use crate::selection::Selection;
use crate::texture::PackedTexture;

/// What the model is made of, as the earlier stages left it.
pub(crate) struct Parts<'a> {
    /// The source scene.
    pub(crate) scene: &'a Scene,
    /// Its rest-pose node globals.
    pub(crate) rest: &'a [Mat4],
    /// The clips baked.
    pub(crate) selection: &'a Selection,
    /// Each clip's frame count at the base rate.
    pub(crate) base_frames: &'a [u32],
    /// Root-motion node, when clips are baked in place.
    pub(crate) root: Option<u32>,
    /// Palette and LOD 0.
    pub(crate) meshes: Meshes,
    /// Every frame, sampled and measured.
    pub(crate) frames: FrameTable,
    /// The frames as texels.
    pub(crate) texture: PackedTexture,
    /// The materials' images, baked.
    pub(crate) images: Vec<Image>,
}

/// The model of `parts`, with LOD 0 only; fills `report` but for its LODs.
pub(crate) fn assemble(parts: Parts, opts: &BakeOptions, report: &mut BakeReport) -> BakedModel {
    let Parts {
        scene,
        rest,
        selection,
        base_frames,
        root,
        meshes: Meshes {
            palette,
            lod0,
            mut morphs,
        },
        frames:
            FrameTable {
                rows: _, // taken by the texture stage
                weights,
                frame_bounds,
                root_keys,
                mut worst,
                mut clips,
                sites,
            },
        texture: PackedTexture { texels, layout },
        images,
    } = parts;
    let bone_count = palette.entries.len() as u32;
    let bones = bones(&palette, scene, rest);
    let bounds = frame_bounds.iter().fold(Aabb::EMPTY, |a, b| a.union(b));
    // Errors become relative to the bounding radius.
    let scale = ClipScale {
        bounding_radius: bounds.radius(),
        bone_count,
        opts,
    };
    worst.rel = scale.rel(worst.abs);
    let worst_between = summarise_clips(&mut clips, sites, base_frames, &scale, report);
    let model = BakedModel {
        name: scene.name.clone(),
        source: String::new(),
        fps: opts.fps,
        bake_error: worst.rel,
        bones,
        clips,
        texture: BoneTexture {
            width: layout.width,
            layers: layout.layers,
            texels,
        },
        bounds,
        bounding_radius: scale.bounding_radius,
        frame_bounds,
        lods: vec![lod0],
        materials: scene.materials.clone(),
        images,
        root_motion: if root.is_some() {
            root_keys
        } else {
            Vec::new()
        },
        events: selection.events(scene),
        morphs: {
            morphs.weights = if morphs.slots.is_empty() {
                Vec::new()
            } else {
                weights
            };
            morphs
        },
        impostor: None,
        provenance: None,
        contacts: Vec::new(),
    };
    // Each clip's feet and their contact phases, measured from the frames
    // just baked and stored with them (throng_core::contacts).
    let model = BakedModel {
        contacts: throng_core::contacts::contacts(&model),
        ..model
    };
    report_model(report, &model, layout);
    report.error = worst;
    report.error_between = worst_between;
    report.max_error = opts.max_error;
    report.root_motion_node = root.map(|r| scene.nodes[r as usize].name.clone());
    model
}

/// The model's bones, one per palette entry: its name made unique
/// ([`Palette::names`]), node, parent entry, inverse bind and the node's
/// rest global from `rest`.
fn bones(palette: &Palette, scene: &Scene, rest: &[Mat4]) -> Vec<Bone> {
    let names = palette.names(scene);
    palette
        .entries
        .iter()
        .enumerate()
        .map(|(i, (node, ibm))| Bone {
            name: names[i].clone(),
            node: *node,
            parent: palette.parent_of(scene, *node),
            inverse_bind: *ibm,
            rest_global: rest[*node as usize],
        })
        .collect()
}

/// Sets every clip's errors from its worst `sites` (at frames, between
/// frames) and adds its summary to `report` ([`ClipScale::summarise`]);
/// `base_frames` are the clips' frame counts at the base rate. Returns the
/// worst error between frames over all clips.
fn summarise_clips(
    clips: &mut [ClipInfo],
    sites: Vec<(ErrorSite, ErrorSite)>,
    base_frames: &[u32],
    scale: &ClipScale,
    report: &mut BakeReport,
) -> ErrorSite {
    let mut worst_between = ErrorSite::default();
    for ((clip, (at, between)), n_min) in clips.iter_mut().zip(sites).zip(base_frames) {
        let summary = scale.summarise(clip, at, between, *n_min, &mut report.warnings);
        let between = &summary.error_between;
        if between.abs > worst_between.abs || !between.abs.is_finite() {
            worst_between = between.clone();
        }
        report.clips.push(summary);
    }
    worst_between
}

/// What a clip's summary is reckoned against: the model's bounding radius
/// (errors are relative to it), its palette size (a frame's bytes) and the
/// options (the error bound, the texel precision).
struct ClipScale<'a> {
    /// The model's bounding radius, model units.
    bounding_radius: f32,
    /// Palette entries.
    bone_count: u32,
    /// The bake's options.
    opts: &'a BakeOptions,
}

impl ClipScale<'_> {
    /// `abs`, in model units, relative to the bounding radius.
    fn rel(&self, abs: f32) -> f32 {
        abs / self.bounding_radius.max(f32::MIN_POSITIVE)
    }

    /// Sets `clip`'s errors from its worst sites `at` its frames and
    /// `between` them, made relative; pushes a warning onto `warnings` when
    /// either is over `--max-error`. Returns the clip's summary, with
    /// `base_frames` its frame count at the base rate.
    fn summarise(
        &self,
        clip: &mut ClipInfo,
        mut at: ErrorSite,
        mut between: ErrorSite,
        base_frames: u32,
        warnings: &mut Vec<String>,
    ) -> ClipSummary {
        let max_error = self.opts.max_error;
        at.rel = self.rel(at.abs);
        between.rel = self.rel(between.abs);
        clip.error = ClipError {
            at_frames: at.rel,
            between_frames: between.rel,
            max_error,
        };
        let within = at.rel <= max_error && between.rel <= max_error;
        if !within {
            warnings.push(format!(
                "clip {:?}: error {:.2e} × radius between frames ({:.2e} at frames) at {:.1} fps ({} frames) exceeds --max-error {:.1e}{}",
                clip.name,
                between.rel,
                at.rel,
                clip_rate(clip.frame_count, clip.duration),
                clip.frame_count,
                max_error,
                if at.rel > 0.5 * max_error {
                    "; the error at the frames themselves (precision, dropped influences) is the limit"
                } else {
                    "; raise --max-fps"
                }
            ));
        }
        ClipSummary {
            name: clip.name.clone(),
            duration: clip.duration,
            frames: clip.frame_count,
            base_frames,
            fps: clip_rate(clip.frame_count, clip.duration),
            bytes: clip.frame_count as u64
                * self.bone_count as u64
                * 3
                * self.opts.precision.texel_size() as u64,
            error_at_frames: at,
            error_between: between,
            within_bound: within,
        }
    }
}

/// Fills `report`'s counts from the assembled `model` (its bone texture
/// laid out as `layout`); LODs after LOD 0 change none of these.
fn report_model(report: &mut BakeReport, model: &BakedModel, layout: TextureLayout) {
    debug_assert_eq!(REST_FRAME, 0);
    let lod = &model.lods[0];
    report.bones = model.bones.len() as u32;
    report.frames = model.frame_bounds.len() as u32;
    report.texture = Some(layout);
    report.texture_bytes = model.texture.texels.as_bytes().len() as u64;
    report.vertices = lod.vertices.len();
    report.triangles = lod.indices.len() / 3;
    report.submeshes = lod.submeshes.len();
    report.bounding_radius = model.bounding_radius;
    report.events = model.events.len();
}
