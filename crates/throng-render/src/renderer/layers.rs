//! Animation layers on the renderer's CPU-list (unbounded) path: each
//! frame, every record of a layered group ([`DrawGroup::layered`]) gets a
//! place in the palette buffer (its `frame0` then points there: its bones'
//! matrices, then its layered morph weights), the
//! frame's layer sets go to the GPU, and the palette pre-pass
//! ([`PalettePass`]) evaluates them — one dispatch per (crowd, model, LOD)
//! group, submitted before the frame's draws, which read the palettes at
//! group 3, binding 5 (`records_storage.wgsl`). An instance in both the
//! camera's and the light's list is evaluated once per list. The sets that
//! ask for foot IK (`Crowd::set_foot_ik`) then have their feet planted on
//! their crowd's ground by the foot IK pass ([`FootIkPass`]), in the same
//! submission, on the palettes the pre-pass wrote.
//!
//! [`DrawGroup::layered`]: throng_crowd::crowd::DrawGroup::layered

use std::collections::HashMap;

use throng_core::foot_ik::Leg;
use throng_core::gpu::{GpuIkInstance, GpuLayerSet};
use throng_crowd::crowd::{Crowd, DrawList, ModelId};
use wgpu::util::DeviceExt;

use crate::base::error::RenderError;
use crate::device::pass_timer::{PassTimer, SpanKind};
use crate::model::gpu_model::GpuModel;
use crate::passes::foot_ik::{FootIkJob, FootIkPass, GpuLegs};
use crate::passes::palette::{PALETTE_MATRIX_BYTES, PaletteJob, PalettePass, PaletteTables};

/// One pre-pass dispatch: a layered group's sets.
struct Dispatch {
    crowd: usize,
    model: ModelId,
    model_key: u64,
    first: u32,
    count: u32,
    /// Its instances with foot IK.
    ik: Vec<GpuIkInstance>,
}

/// The frame's layer sets, their palettes and the pre-pass.
pub(super) struct LayerDraws {
    pass: Option<PalettePass>,
    ik_pass: Option<FootIkPass>,
    /// Each model's legs, by model key, with the legs they were made of.
    legs: HashMap<u64, (Vec<Leg>, GpuLegs)>,
    palettes: wgpu::Buffer,
    /// Bumped when `palettes` is replaced (bind groups over it go stale).
    pub(super) generation: u64,
    sets: Vec<GpuLayerSet>,
    dispatches: Vec<Dispatch>,
    /// Palette matrices placed this frame.
    matrices: u64,
}

impl LayerDraws {
    pub(super) fn new(device: &wgpu::Device) -> Self {
        Self {
            pass: None,
            ik_pass: None,
            legs: HashMap::new(),
            palettes: palette_buffer(device, PALETTE_MATRIX_BYTES),
            generation: 0,
            sets: Vec::new(),
            dispatches: Vec::new(),
            matrices: 0,
        }
    }

    /// The palette buffer (at least one matrix; bound even when unused).
    pub(super) fn palettes(&self) -> &wgpu::Buffer {
        &self.palettes
    }

    /// Starts a frame.
    pub(super) fn clear(&mut self) {
        self.sets.clear();
        self.dispatches.clear();
        self.matrices = 0;
    }

    /// Places the palette of every layered record of `lists` (one per
    /// crowd of `crowds`), pointing the record's `frame0` at it.
    pub(super) fn place(&mut self, lists: &mut [DrawList], crowds: &[&Crowd]) {
        for (c, list) in lists.iter_mut().enumerate() {
            let DrawList {
                records,
                groups,
                layer_sets,
                ..
            } = list;
            for group in groups.iter().filter(|g| g.layered) {
                let Ok(model) = crowds[c].model(group.model) else {
                    continue;
                };
                let entries = throng_core::layers::palette_entries(model);
                let first = self.sets.len() as u32;
                let range = group.first as usize..(group.first + group.count) as usize;
                let mut ik = Vec::new();
                for rec in &mut records[range] {
                    let Some(mut set) = layer_sets.get(rec.frame0 as usize).copied() else {
                        continue;
                    };
                    set.palette = self.matrices as u32;
                    if set.foot_ik != 0 {
                        ik.push(GpuIkInstance {
                            world_from_model: rec.world_from_model,
                            palette: set.palette,
                            clip_ground: set.clip_ground,
                            pad: [0; 2],
                        });
                    }
                    rec.frame0 = set.palette;
                    self.matrices += entries;
                    self.sets.push(set);
                }
                self.dispatches.push(Dispatch {
                    crowd: c,
                    model: group.model,
                    model_key: group.model_key,
                    first,
                    count: self.sets.len() as u32 - first,
                    ik,
                });
            }
        }
    }

    /// Evaluates the placed palettes on the GPU (its own submission, ahead
    /// of the frame's draws).
    pub(super) fn run(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        crowds: &[&Crowd],
        models: &[&GpuModel],
        timer: Option<&PassTimer>,
    ) -> Result<(), RenderError> {
        if self.sets.is_empty() {
            return Ok(());
        }
        let needed = self.matrices * PALETTE_MATRIX_BYTES;
        let max = device.limits().max_storage_buffer_binding_size;
        if needed > max {
            return Err(RenderError::TooBig {
                model: "(all crowds)".into(),
                what: "palettes of the instances with animation layers, bytes".into(),
                needed,
                limit: max,
            });
        }
        if self.palettes.size() < needed {
            let size = needed.next_power_of_two().min(max).max(needed);
            self.palettes = palette_buffer(device, size);
            self.generation += 1;
        }
        let sets = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng layer sets"),
            contents: bytemuck::cast_slice(&self.sets),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let pass = self.pass.get_or_insert_with(|| PalettePass::new(device));
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng palette pre-pass"),
        });
        let mut tables: Vec<((usize, ModelId), PaletteTables)> = Vec::new();
        for d in &self.dispatches {
            let Some(gpu_model) = models.iter().find(|m| m.key() == d.model_key) else {
                continue;
            };
            let key = (d.crowd, d.model);
            if !tables.iter().any(|(k, _)| *k == key) {
                // The group came from this crowd, so its model is there.
                let crowd = crowds[d.crowd];
                let (Ok(handle), Ok(masks)) =
                    (crowd.model_handle(d.model), crowd.mask_table(d.model))
                else {
                    continue;
                };
                tables.push((key, PaletteTables::new(device, handle.skeleton(), &masks)));
            }
            let (_, t) = tables.iter().find(|(k, _)| *k == key).expect("added above");
            let job = PaletteJob {
                sets: &sets,
                first: d.first,
                count: d.count,
                palettes: &self.palettes,
            };
            let span = timer.and_then(|t| {
                Some(t.compute_writes(t.span("palette pre-pass", SpanKind::Prepared)?))
            });
            pass.encode(device, &mut encoder, gpu_model, t, &job, span);
            if !d.ik.is_empty() {
                let crowd = crowds[d.crowd];
                let Ok(wanted) = crowd.legs(d.model) else {
                    continue;
                };
                let entry = self
                    .legs
                    .entry(d.model_key)
                    .or_insert_with(|| (wanted.to_vec(), GpuLegs::new(device, wanted)));
                if entry.0 != wanted {
                    // Another crowd's, or configured since.
                    *entry = (wanted.to_vec(), GpuLegs::new(device, wanted));
                }
                let legs = &entry.1;
                let ground = crowd.ground_words();
                let ik = FootIkJob {
                    instances: &d.ik,
                    legs,
                    tables: t,
                    palettes: &self.palettes,
                    ground: &ground,
                };
                let ik_pass = self.ik_pass.get_or_insert_with(|| FootIkPass::new(device));
                let span = timer
                    .and_then(|t| Some(t.compute_writes(t.span("foot IK", SpanKind::Prepared)?)));
                ik_pass.encode(device, &mut encoder, &ik, span);
            }
        }
        queue.submit([encoder.finish()]);
        Ok(())
    }
}

fn palette_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("throng palettes"),
        size,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    })
}
