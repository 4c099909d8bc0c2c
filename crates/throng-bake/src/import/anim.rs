//! Animations: channels to clips (keys validated), and events from the
//! animations' extras.

use std::collections::{BTreeMap, HashSet};

use crate::scene::{Channel, Clip, Interpolation, Property, WeightChannel};
use glam::{Vec3, Vec4};
use throng_core::model::ClipEvent;

use crate::accessor::{Expect, FLOAT_ONLY, FLOAT_OR_NORM, Norm};
use crate::error::ImportError;
use crate::gltf_doc::{self, AnimSampler, DataType, Dimensions};

use super::*;

/// A sampler's interpolation as the scene names it.
fn interpolation(sampler: &AnimSampler) -> Interpolation {
    match sampler.interpolation {
        gltf_doc::Interpolation::Step => Interpolation::Step,
        gltf_doc::Interpolation::Linear => Interpolation::Linear,
        gltf_doc::Interpolation::CubicSpline => Interpolation::CubicSpline,
    }
}

/// The clip names given so far, so that a repeated name gets a free
/// ` (k)` suffix.
#[derive(Default)]
struct ClipNames {
    taken: HashSet<String>,
    /// Per base name, the suffix to try first for its next repeat.
    next_suffix: BTreeMap<String, usize>,
}

impl ClipNames {
    /// `base` if it is free, else `base (k)` with the first free `k` from
    /// 2; the name returned is taken. Linear in the clip count: names are
    /// looked up in a set, and a repeated base name resumes at the next
    /// free suffix.
    fn unique(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut k = self.next_suffix.get(base).copied().unwrap_or(2);
        while self.taken.contains(&name) {
            name = format!("{base} ({k})");
            k += 1;
        }
        self.next_suffix.insert(base.to_owned(), k);
        self.taken.insert(name.clone());
        name
    }
}

impl Ctx<'_> {
    /// Every animation with a transform or morph weight channel as a clip
    /// (named uniquely), and the events in the animations' extras.
    pub(super) fn clips(
        &self,
        w: &mut Warnings,
    ) -> Result<(Vec<Clip>, Vec<ClipEvent>), ImportError> {
        let mut events = Vec::new();
        let mut clips: Vec<Clip> = Vec::new();
        let mut names = ClipNames::default();
        for (a, anim) in self.doc.json().animations.iter().enumerate() {
            let (channels, weights) = self.anim_channels(a, anim.channels.len(), w)?;
            if channels.is_empty() && weights.is_empty() {
                w.add(format!(
                    "animations[{a}] has no transform or morph weight channels; skipped"
                ));
                continue;
            }
            let base = anim.name.clone().unwrap_or_else(|| format!("animation{a}"));
            let name = names.unique(&base);
            if name != base {
                w.add(format!(
                    "animations[{a}]: duplicate clip name {base:?} renamed {name:?}"
                ));
            }
            let clip = Clip {
                name,
                channels,
                weights,
            };
            if let Some(raw) = &anim.extras {
                self.extras_events(a, clips.len() as u32, &clip, raw.get(), &mut events)?;
            }
            clips.push(clip);
        }
        Ok((clips, events))
    }

    /// The `count` channels of animation `a`: transform channels and morph
    /// weight channels apart. A later channel for the same node and
    /// property replaces an earlier one (with a warning for a transform).
    fn anim_channels(
        &self,
        a: usize,
        count: usize,
        w: &mut Warnings,
    ) -> Result<(Vec<Channel>, Vec<WeightChannel>), ImportError> {
        let mut channels: Vec<Channel> = Vec::new();
        let mut weights: Vec<WeightChannel> = Vec::new();
        for c in 0..count {
            let at = format!("animations[{a}].channels[{c}]");
            let ch = self.doc.channel(a, c)?;
            let property = match ch.property {
                gltf_doc::Property::Translation => Property::Translation,
                gltf_doc::Property::Rotation => Property::Rotation,
                gltf_doc::Property::Scale => Property::Scale,
                gltf_doc::Property::MorphTargetWeights => {
                    if let Some(ch) = self.weight_channel(a, &ch, &at, w)? {
                        weights.retain(|x: &WeightChannel| x.node != ch.node);
                        weights.push(ch);
                    }
                    continue;
                }
            };
            let channel = self.transform_channel(a, &ch, property)?;
            let node = channel.node;
            if let Some(dup) = channels
                .iter()
                .position(|x| x.node == node && x.property == property)
            {
                w.add(format!(
                    "{at}: a second channel for node {node} {property:?}; it replaces the first"
                ));
                channels.remove(dup);
            }
            channels.push(channel);
        }
        Ok((channels, weights))
    }

    /// A translation, rotation or scale channel: its sampler's key times
    /// and one value per key (three for a cubic spline: in-tangent, value,
    /// out-tangent), rotations as `Vec4`, the others with w = 0.
    fn transform_channel(
        &self,
        a: usize,
        ch: &gltf_doc::Channel,
        property: Property,
    ) -> Result<Channel, ImportError> {
        let sampler = ch.sampler;
        let s = sampler.index;
        let sp = format!("animations[{a}].samplers[{s}]");
        let interpolation = interpolation(&sampler);
        let times = self.key_times(&sampler, &sp)?;
        let (dims, types): (&[Dimensions], &[DataType]) = match property {
            Property::Rotation => (&[Dimensions::Vec4], FLOAT_OR_NORM),
            _ => (&[Dimensions::Vec3], FLOAT_ONLY),
        };
        let out = self.buffers.read(
            &sampler.output,
            Expect {
                dims,
                types,
                normalized: Norm::Required,
            },
            &|| format!("{sp}.output"),
        )?;
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        if out.count() != times.len() * per_key {
            return Err(bad_value(
                format!("{sp}.output"),
                &format!(
                    "has {} values for {} keys ({interpolation:?} needs {})",
                    out.count(),
                    times.len(),
                    times.len() * per_key
                ),
            ));
        }
        let n = out.dims;
        let values = out
            .to_f32()
            .chunks_exact(n)
            .map(|v| {
                if n == 4 {
                    Vec4::from_slice(v)
                } else {
                    Vec3::from_slice(v).extend(0.0)
                }
            })
            .collect();
        Ok(Channel {
            node: ch.node as u32,
            property,
            interpolation,
            times,
            values,
        })
    }

    /// A morph weight channel: its node's mesh gives the weights per key;
    /// `None` (with a warning) for a node that shows no mesh with targets.
    fn weight_channel(
        &self,
        a: usize,
        ch: &gltf_doc::Channel,
        at: &str,
        w: &mut Warnings,
    ) -> Result<Option<WeightChannel>, ImportError> {
        let node = ch.node;
        let targets = match self.doc.node_mesh(node)? {
            (Some(m), _) => self.doc.mesh_target_count(m),
            (None, _) => 0,
        };
        if targets == 0 {
            w.add(format!(
                "{at}: animates the morph weights of node {node}, which shows no mesh with morph targets; skipped"
            ));
            return Ok(None);
        }
        let sampler = ch.sampler;
        let sp = format!("animations[{a}].samplers[{}]", sampler.index);
        let interpolation = interpolation(&sampler);
        let times = self.key_times(&sampler, &sp)?;
        let out = self.buffers.read(
            &sampler.output,
            Expect {
                dims: &[Dimensions::Scalar],
                types: FLOAT_OR_NORM,
                normalized: Norm::Required,
            },
            &|| format!("{sp}.output"),
        )?;
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let expected = times.len() * per_key * targets;
        if out.count() != expected {
            return Err(bad_value(
                format!("{sp}.output"),
                &format!(
                    "has {} weights for {} keys of {targets} morph targets ({interpolation:?} needs {expected})",
                    out.count(),
                    times.len(),
                ),
            ));
        }
        let values = out.to_f32();
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(bad_value(
                format!("{sp}.output"),
                &format!(
                    "weight {} of key {} is {} (weights must be finite)",
                    i % targets,
                    i / (per_key * targets),
                    values[i]
                ),
            ));
        }
        Ok(Some(WeightChannel {
            node: node as u32,
            interpolation,
            times,
            values,
            targets: targets as u32,
        }))
    }

    /// A sampler's key times: non-negative, strictly increasing.
    fn key_times(&self, sampler: &AnimSampler, sp: &str) -> Result<Vec<f32>, ImportError> {
        let times = self
            .buffers
            .read(
                &sampler.input,
                Expect {
                    dims: &[Dimensions::Scalar],
                    types: FLOAT_ONLY,
                    normalized: Norm::Forbidden,
                },
                &|| format!("{sp}.input"),
            )?
            .to_f32();
        if let Some(k) = times.iter().position(|t| *t < 0.0) {
            return Err(bad_value(
                format!("{sp}.input"),
                &format!("key {k} has negative time {}", times[k]),
            ));
        }
        if let Some(k) = times.windows(2).position(|p| p[1] <= p[0]) {
            return Err(bad_value(
                format!("{sp}.input"),
                &format!(
                    "key times are not strictly increasing at key {} ({} then {})",
                    k + 1,
                    times[k],
                    times[k + 1]
                ),
            ));
        }
        Ok(times)
    }

    /// Events in an animation's `extras.events` (see `crate::events`).
    pub(super) fn extras_events(
        &self,
        a: usize,
        clip: u32,
        c: &Clip,
        raw: &str,
        out: &mut Vec<ClipEvent>,
    ) -> Result<(), ImportError> {
        let at = format!("animations[{a}].extras");
        let value: serde_json::Value = serde_json::from_str(raw)
            .map_err(|e| bad_value(at.clone(), &format!("not valid JSON: {e}")))?;
        let Some(list) = value.get("events") else {
            return Ok(());
        };
        let list = list
            .as_array()
            .ok_or_else(|| bad_value(format!("{at}.events"), "expected a list of events"))?;
        let d = c.duration();
        for (i, v) in list.iter().enumerate() {
            let path = format!("{at}.events[{i}]");
            let e = crate::events::parse_event(v, clip, &path)
                .map_err(|m| bad_value(path.clone(), &m))?;
            if !(e.time.is_finite() && (0.0..=d).contains(&e.time)) {
                return Err(bad_value(
                    path,
                    &format!("time {} s is outside clip {:?} (0..={d} s)", e.time, c.name),
                ));
            }
            out.push(e);
        }
        Ok(())
    }
}
