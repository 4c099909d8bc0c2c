//! `throng sample`: skinned vertex positions at clip times, as JSON.
//!
//! Schema (documented in docs/FORMAT.md):
//! `{"model", "source", "clip", "clip_index", "frames": [{"time", "meshes":
//! [{"node", "mesh", "primitive", "positions": [x, y, z, …]}]}]}` — one mesh
//! entry per source (node, primitive) in glTF order, vertices in source order,
//! positions in model (scene-root) space.

use std::path::PathBuf;
use throng_cli::args::clip::resolve_clip;

use anyhow::{Context, Result, bail};
use clap::{Args as ClapArgs, ValueEnum};
use serde_json::{Value, json};
use throng_bake::reference::{self, SkinnedPrimitive};
use throng_core::baked::skin_lod;
use throng_core::gpu::FrameBlend;

use crate::util::{check_output, load_baked, write_stdout};
use throng_bake::ModelKind;

/// Where positions come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Source {
    /// The CPU reference, sampling the glTF directly at each time.
    Reference,
    /// The baked data, interpolated between baked frames as the shader does.
    Baked,
    /// The GPU: the shader's own skinning function in a compute pass.
    Gpu,
}

/// Arguments of `throng sample`.
#[derive(ClapArgs)]
pub struct Args {
    /// A glTF model (any source) or a `.throng` file (`--source baked`).
    pub model: PathBuf,
    /// Clip name, or its index in file order.
    #[arg(long)]
    pub clip: String,
    /// Clip times in seconds, comma-separated (clamped to the clip).
    #[arg(long, value_delimiter = ',', required = true)]
    pub times: Vec<f32>,
    /// Where the positions come from.
    #[arg(long, value_enum, default_value_t = Source::Reference)]
    pub source: Source,
    /// An animation layer over the clip (up to 3; `--source baked` only):
    /// `CLIP[,time=S][,weight=W][,mode=override|additive][,reference=S][,mask=BONE+BONE]`.
    /// A layer shows its clip at its own `time`. Or a morph preset:
    /// `morph=TARGET:W[+TARGET:W][,weight=W]` (targets by name or slot).
    #[arg(long = "layer", value_parser = throng_cli::args::layer::parse)]
    pub layers: Vec<throng_cli::args::layer::LayerSpec>,
    /// Output JSON file, *.json [default: standard output].
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Skinned primitives at each requested time.
type Frames = Vec<(f32, Vec<SkinnedPrimitive>)>;

/// Runs `throng sample`.
pub fn run(args: Args) -> Result<()> {
    if let Some(t) = args.times.iter().find(|t| !t.is_finite()) {
        bail!("--times: {t} is not a finite number");
    }
    if let Some(path) = &args.output {
        check_output(path, "json", &[&args.model])?;
    }
    if !args.layers.is_empty() && args.source != Source::Baked {
        bail!(
            "--layer needs --source baked (layers are defined on the baked palettes; the reference has none)"
        );
    }
    let kind = ModelKind::of(&args.model)?;
    let (clip_name, clip_index, frames): (String, usize, Frames) = match args.source {
        Source::Reference => {
            if kind == ModelKind::Throng {
                bail!(
                    "--source reference samples the source glTF; give the .gltf/.glb, or use --source baked for a .throng"
                );
            }
            let imported = throng_bake::import_file(&args.model)
                .with_context(|| format!("importing {}", args.model.display()))?;
            let scene = &imported.scene;
            let names: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
            let c = resolve_clip(&names, &args.clip)?;
            let duration = scene.clips[c].duration();
            let frames = args
                .times
                .iter()
                .map(|&t| (t, reference::sample(scene, Some(c), t.clamp(0.0, duration))))
                .collect();
            (scene.clips[c].name.clone(), c, frames)
        }
        Source::Gpu => {
            let (model, _) = load_baked(&args.model)?;
            let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
            let c = resolve_clip(&names, &args.clip)?;
            let (name, frames) = sample_gpu(model, c, &args.times)?;
            (name, c, frames)
        }
        Source::Baked => {
            let (model, _) = load_baked(&args.model)?;
            let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
            let c = resolve_clip(&names, &args.clip)?;
            if args.layers.is_empty() {
                let clip = &model.clips[c];
                let frames = args
                    .times
                    .iter()
                    .map(|&t| {
                        (
                            t,
                            skin_lod(&model, 0, &FrameBlend::single(clip.frames_at(t))),
                        )
                    })
                    .collect();
                (clip.name.clone(), c, frames)
            } else {
                let name = model.clips[c].name.clone();
                (
                    name,
                    c,
                    sample_layered(model, c, &args.times, &args.layers)?,
                )
            }
        }
    };
    let doc = to_json(
        &args.model.display().to_string(),
        args.source,
        &clip_name,
        clip_index,
        &frames,
    );
    let text = serde_json::to_string(&doc)?;
    match &args.output {
        Some(path) => throng_core::fsio::write_atomic(path, text.as_bytes())?,
        None => write_stdout(&(text + "\n"))?,
    }
    Ok(())
}

/// LOD 0 with layers over clip `clip` at each time (the CPU's layered
/// palette, `throng_core::layers`).
fn sample_layered(
    model: throng_core::BakedModel,
    clip: usize,
    times: &[f32],
    layers: &[throng_cli::args::layer::LayerSpec],
) -> Result<Frames> {
    use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
    let handle = ModelHandle::new(model)?;
    let model = handle.model();
    let (mut palette, mut weights) = (Vec::new(), Vec::new());
    let mut frames = Vec::with_capacity(times.len());
    for &t in times {
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&handle);
        let id = crowd.spawn(
            m,
            Spawn {
                clip: Some(clip),
                time: t,
                ..Spawn::default()
            },
        )?;
        throng_cli::args::layer::apply(&mut crowd, m, &[id], layers)?;
        crowd.palette(id, &mut palette)?;
        crowd.morph_weights(id, &mut weights)?;
        frames.push((
            t,
            throng_core::baked::skin_lod_with(model, 0, &palette, &weights),
        ));
    }
    Ok(frames)
}

/// Skins LOD 0 on the GPU at each time; returns the clip name and, per time,
/// the positions split by source primitive.
fn sample_gpu(
    model: throng_core::BakedModel,
    clip: usize,
    times: &[f32],
) -> Result<(String, Frames)> {
    use throng_core::gpu::InstanceRecord;
    let handle = throng_crowd::crowd::ModelHandle::new(model)?;
    let model = handle.model();
    let gpu = throng_render::Gpu::headless()?;
    let gpu_model = throng_render::GpuModel::upload(&gpu.device, &gpu.queue, &handle)?;
    let info = &model.clips[clip];
    let records: Vec<InstanceRecord> = times
        .iter()
        .map(|&t| {
            InstanceRecord::new(
                &glam::Mat4::IDENTITY,
                &FrameBlend::single(info.frames_at(t)),
                u32::MAX,
            )
        })
        .collect();
    let out = throng_render::SkinCompute::new(&gpu.device).run(
        &gpu.device,
        &gpu.queue,
        &gpu_model,
        0,
        &records,
    )?;
    let lod = &model.lods[0];
    let frames = times
        .iter()
        .zip(out)
        .map(|(&t, verts)| {
            let prims = lod
                .submeshes
                .iter()
                .map(|s| {
                    let range = s.base_vertex as usize..(s.base_vertex + s.vertex_count) as usize;
                    SkinnedPrimitive {
                        node: s.source_node,
                        mesh: s.source_mesh,
                        primitive: s.source_primitive,
                        positions: verts[range.clone()].iter().map(|v| v.position).collect(),
                        normals: verts[range].iter().map(|v| v.normal).collect(),
                    }
                })
                .collect();
            (t, prims)
        })
        .collect();
    Ok((info.name.clone(), frames))
}

/// Builds the documented JSON document.
pub fn to_json(
    model: &str,
    source: Source,
    clip: &str,
    clip_index: usize,
    frames: &Frames,
) -> Value {
    json!({
        "model": model,
        "source": match source { Source::Reference => "reference", Source::Baked => "baked", Source::Gpu => "gpu" },
        "clip": clip,
        "clip_index": clip_index,
        "frames": frames.iter().map(|(t, prims)| json!({
            "time": t,
            "meshes": prims.iter().map(|p| json!({
                "node": p.node, "mesh": p.mesh, "primitive": p.primitive,
                "positions": p.positions.iter().flat_map(|v| v.to_array()).collect::<Vec<f32>>(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}
