//! `--layer SPEC`: animation layers on the command line (`throng render`,
//! `throng sample`), applied to every instance.
//!
//! `SPEC` is a clip (name or index) then comma-separated `key=value`s:
//! `time` (s, default 0), `speed` (default 1), `weight` (0–1, default 1),
//! `mode` (`override` or `additive`), `reference` (the additive reference
//! pose's time in the layer's clip, s; implies `mode=additive`; default 0),
//! `mask` (bone names joined by `+`: the layer covers their subtrees).
//! Example: `--layer Survey,mask=b_Spine01_02 --layer Run,mode=additive,weight=0.4`.

use anyhow::{Context, Result};
use throng_crowd::crowd::{Crowd, InstanceId, Layer, LayerBlend, ModelId};

use super::clip::resolve_clip;

/// One `--layer` as given.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerSpec {
    clip: String,
    time: f32,
    speed: f32,
    weight: f32,
    reference: Option<f32>,
    mask: Vec<String>,
}

/// Parses a `--layer` (clap's value parser).
pub fn parse(s: &str) -> Result<LayerSpec, String> {
    let mut parts = s.split(',');
    let clip = parts.next().unwrap_or("").trim();
    if clip.is_empty() || clip.contains('=') {
        return Err(format!(
            "{s:?}: a layer starts with its clip (name or index), e.g. Survey,mask=b_Spine01_02"
        ));
    }
    let mut spec = LayerSpec {
        clip: clip.to_owned(),
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
        let number = || -> Result<f32, String> {
            value
                .trim()
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{s:?}: {key}={value:?} is not a finite number"))
        };
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
        let clip = resolve_clip(&names, &spec.clip).with_context(|| format!("--layer {i}"))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_say_what_is_wrong() {
        let s = parse("Survey,mask=b_Spine01_02+b_Tail01_012,weight=0.5").unwrap();
        assert_eq!(s.clip, "Survey");
        assert_eq!(s.mask, ["b_Spine01_02", "b_Tail01_012"]);
        assert_eq!((s.weight, s.reference), (0.5, None));
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
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.contains(says), "{bad:?}: {err}");
        }
    }
}
