//! `--layer SPEC`: animation layers on the command line (`throng render`,
//! `throng sample`), applied to every instance.
//!
//! `SPEC` is a clip (name or index) then comma-separated `key=value`s:
//! `time` (s, default 0), `speed` (default 1), `weight` (0–1, default 1),
//! `mode` (`override` or `additive`), `reference` (the additive reference
//! pose's time in the layer's clip, s; implies `mode=additive`; default 0),
//! `mask` (bone names joined by `+`: the layer covers their subtrees).
//! Example: `--layer Survey,mask=b_Spine01_02 --layer Run,mode=additive,weight=0.4`.
//!
//! A morph preset instead of a clip: `morph=` then morph targets (name or
//! slot index) with their weights, `NAME:WEIGHT` joined by `+`, and
//! optionally `weight`: the layer moves those targets' weights toward the
//! preset's by its weight and moves no bone (`Crowd::add_morph_preset`,
//! `Layer::weights`). Example: `--layer morph=blink:1+smile:0.6,weight=0.5`.

use anyhow::{Context, Result};
use throng_crowd::crowd::{Crowd, InstanceId, Layer, LayerBlend, ModelId};

use super::clip::resolve_clip;

/// What a `--layer` plays.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    /// A clip, by name or index.
    Clip(String),
    /// A morph preset: targets (name or slot index) and their weights.
    Morph(Vec<(String, f32)>),
}

/// One `--layer` as given.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerSpec {
    source: Source,
    time: f32,
    speed: f32,
    weight: f32,
    reference: Option<f32>,
    mask: Vec<String>,
}

/// A finite number, or what is wrong with `value` as `key`'s.
fn finite(s: &str, key: &str, value: &str) -> Result<f32, String> {
    value
        .trim()
        .parse::<f32>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("{s:?}: {key}={value:?} is not a finite number"))
}

/// A morph preset's `NAME:WEIGHT+NAME:WEIGHT`.
fn morph_targets(s: &str, list: &str) -> Result<Vec<(String, f32)>, String> {
    list.split('+')
        .map(|t| {
            let (name, w) = t.split_once(':').ok_or_else(|| {
                format!(
                    "{s:?}: morph target {t:?} is not NAME:WEIGHT, e.g. morph=blink:1+smile:0.6"
                )
            })?;
            let name = name.trim();
            if name.is_empty() {
                return Err(format!("{s:?}: morph target {t:?} has no name"));
            }
            Ok((name.to_owned(), finite(s, name, w)?))
        })
        .collect()
}

/// Parses a `--layer` (clap's value parser).
pub fn parse(s: &str) -> Result<LayerSpec, String> {
    let mut parts = s.split(',');
    let first = parts.next().unwrap_or("").trim();
    let source = match first.split_once('=') {
        Some(("morph", list)) => Source::Morph(morph_targets(s, list)?),
        _ if first.is_empty() || first.contains('=') => {
            return Err(format!(
                "{s:?}: a layer starts with its clip (name or index), e.g. Survey,mask=b_Spine01_02, or a morph preset, e.g. morph=blink:1"
            ));
        }
        _ => Source::Clip(first.to_owned()),
    };
    let morph = matches!(source, Source::Morph(_));
    let mut spec = LayerSpec {
        source,
        time: 0.0,
        speed: 1.0,
        weight: 1.0,
        reference: None,
        mask: Vec::new(),
    };
    let mut additive = false;
    for part in parts {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| format!("{s:?}: {part:?} is not key=value"))?;
        let number = || finite(s, key, value);
        if morph && key.trim() != "weight" {
            return Err(format!(
                "{s:?}: a morph preset's layer takes weight only, not {key:?} (it plays no clip and moves no bone)"
            ));
        }
        match key.trim() {
            "time" => spec.time = number()?,
            "speed" => spec.speed = number()?,
            "weight" => spec.weight = number()?,
            "reference" => spec.reference = Some(number()?),
            "mode" => match value.trim() {
                "override" => additive = false,
                "additive" => additive = true,
                other => {
                    return Err(format!(
                        "{s:?}: mode {other:?} is neither override nor additive"
                    ));
                }
            },
            "mask" => spec.mask = value.split('+').map(|b| b.trim().to_owned()).collect(),
            other => {
                return Err(format!(
                    "{s:?}: unknown key {other:?} (time, speed, weight, mode, reference, mask)"
                ));
            }
        }
    }
    if additive && spec.reference.is_none() {
        spec.reference = Some(0.0);
    }
    Ok(spec)
}

/// Gives every instance of `ids` the layers of `specs` (clips and masks of
/// `model` resolved by name).
pub fn apply(
    crowd: &mut Crowd,
    model: ModelId,
    ids: &[InstanceId],
    specs: &[LayerSpec],
) -> Result<()> {
    if specs.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = crowd
        .model(model)?
        .clips
        .iter()
        .map(|c| c.name.clone())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut layers = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let clip = match &spec.source {
            Source::Clip(clip) => clip,
            Source::Morph(targets) => {
                let preset = morph_preset(crowd, model, targets)
                    .with_context(|| format!("--layer {i}'s morph preset"))?;
                layers.push(Layer::weights(preset, spec.weight));
                continue;
            }
        };
        let clip = resolve_clip(&names, clip).with_context(|| format!("--layer {i}"))?;
        let mask = if spec.mask.is_empty() {
            None
        } else {
            let roots: Vec<&str> = spec.mask.iter().map(String::as_str).collect();
            Some(
                crowd
                    .mask_subtrees(model, &roots)
                    .with_context(|| format!("--layer {i}'s mask"))?,
            )
        };
        layers.push(Layer {
            clip,
            time: spec.time,
            speed: spec.speed,
            weight: spec.weight,
            blend: match spec.reference {
                Some(reference_time) => LayerBlend::Additive { reference_time },
                None => LayerBlend::Override,
            },
            mask,
            ..Layer::new(clip)
        });
    }
    for &id in ids {
        crowd.set_layers(id, &layers).context("--layer")?;
    }
    Ok(())
}

/// Registers the preset of `targets` (each a target's name, or a slot
/// index) with `model`.
fn morph_preset(
    crowd: &mut Crowd,
    model: ModelId,
    targets: &[(String, f32)],
) -> Result<throng_crowd::crowd::MaskId> {
    let slots = crowd.model(model)?.morphs.slots.len();
    let mut weights = Vec::with_capacity(targets.len());
    for (name, w) in targets {
        let slot = match name.parse::<u32>() {
            Ok(index) if (index as usize) < slots => index,
            _ => crowd.morph_slot(model, name)?,
        };
        weights.push((slot, *w));
    }
    Ok(crowd.add_morph_preset(model, &weights)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_say_what_is_wrong() {
        let s = parse("Survey,mask=b_Spine01_02+b_Tail01_012,weight=0.5").unwrap();
        assert_eq!(s.source, Source::Clip("Survey".into()));
        assert_eq!(s.mask, ["b_Spine01_02", "b_Tail01_012"]);
        assert_eq!((s.weight, s.reference), (0.5, None));
        let m = parse("morph=blink:1+ 2 :0.25,weight=0.5").unwrap();
        assert_eq!(
            m.source,
            Source::Morph(vec![("blink".into(), 1.0), ("2".into(), 0.25)])
        );
        assert_eq!(m.weight, 0.5);
        let a = parse("2,mode=additive,time=0.3").unwrap();
        assert_eq!((a.reference, a.time), (Some(0.0), 0.3));
        assert_eq!(parse("Run,reference=0.2").unwrap().reference, Some(0.2));
        for (bad, says) in [
            ("", "starts with its clip"),
            ("weight=1", "starts with its clip"),
            ("Run,weight", "not key=value"),
            ("Run,weight=heavy", "not a finite number"),
            ("Run,time=inf", "not a finite number"),
            ("Run,mode=blend", "neither override nor additive"),
            ("Run,colour=red", "unknown key"),
            ("morph=", "not NAME:WEIGHT"),
            ("morph=blink", "not NAME:WEIGHT"),
            ("morph=:1", "has no name"),
            ("morph=blink:nan", "not a finite number"),
            ("morph=blink:1,mask=b_Head", "takes weight only"),
            ("morph=blink:1,time=2", "takes weight only"),
            ("colour=red", "or a morph preset"),
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.contains(says), "{bad:?}: {err}");
        }
    }
}
