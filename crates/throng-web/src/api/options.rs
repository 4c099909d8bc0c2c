//! The API's option objects read from JavaScript: `CrowdViewOptions` and
//! `SteerOptions` (their TypeScript declarations are in the parent
//! module). A field of the wrong type is an error that names it; an
//! absent one takes its default.

use anyhow::{Result, bail};
use glam::Vec2;
use wasm_bindgen::{JsCast, JsValue};

use crate::query::BackendChoice;
use crate::view::ViewOptions;
use crate::view::steer::SteerSpec;

/// `object[name]`, `None` when absent or undefined.
fn field(object: &JsValue, name: &str) -> Result<Option<JsValue>> {
    if object.is_undefined() || object.is_null() {
        return Ok(None);
    }
    if !object.is_object() {
        bail!("the options must be an object");
    }
    let v = js_sys::Reflect::get(object, &name.into())
        .map_err(|e| anyhow::anyhow!("reading the option {name}: {e:?}"))?;
    Ok((!v.is_undefined()).then_some(v))
}

fn number(object: &JsValue, name: &str) -> Result<Option<f32>> {
    match field(object, name)? {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(n) if n.is_finite() => Ok(Some(n as f32)),
            _ => bail!("the option {name} must be a finite number"),
        },
    }
}

/// A `Float32Array` or an array of numbers.
fn floats(object: &JsValue, name: &str) -> Result<Option<Vec<f32>>> {
    let Some(v) = field(object, name)? else {
        return Ok(None);
    };
    if let Some(a) = v.dyn_ref::<js_sys::Float32Array>() {
        return Ok(Some(a.to_vec()));
    }
    if js_sys::Array::is_array(&v) {
        return js_sys::Array::from(&v)
            .iter()
            .enumerate()
            .map(|(i, x)| match x.as_f64() {
                Some(n) => Ok(n as f32),
                None => bail!("the option {name}[{i}] is not a number"),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some);
    }
    bail!("the option {name} must be a Float32Array or an array of numbers")
}

/// The backend and view options of `CrowdView.create`'s `options`.
pub fn view_options(options: &JsValue) -> Result<(BackendChoice, ViewOptions)> {
    let backend = match field(options, "backend")?.map(|v| v.as_string()) {
        None => BackendChoice::Auto,
        Some(Some(b)) => match b.as_str() {
            "auto" => BackendChoice::Auto,
            "webgpu" => BackendChoice::WebGpu,
            "webgl2" => BackendChoice::WebGl2,
            other => bail!("the option backend is \"{other}\": auto, webgpu or webgl2"),
        },
        Some(None) => bail!("the option backend must be a string"),
    };
    let mut view = ViewOptions::default();
    if let Some(v) = field(options, "occlusion")? {
        view.occlusion = v
            .as_bool()
            .ok_or_else(|| anyhow::anyhow!("the option occlusion must be true or false"))?;
    }
    if let Some(h) = number(options, "groundHalf")? {
        view.ground_half = h;
    }
    if let Some(c) = number(options, "groundCell")? {
        view.ground_cell = c;
    }
    Ok((backend, view))
}

/// `SteerOptions`, read.
pub struct SteerFields {
    model: u32,
    min: Vec2,
    max: Vec2,
    obstacles: Vec<f32>,
    goals: Vec<f32>,
    agent_radius: f32,
    walk_speed: f32,
}

impl SteerFields {
    /// Reads `options`; a missing required field is an error naming it.
    pub fn read(options: &JsValue) -> Result<Self> {
        let required = |name| {
            number(options, name)?
                .ok_or_else(|| anyhow::anyhow!("steer: the option {name} is missing"))
        };
        let point = |name| -> Result<Vec2> {
            match floats(options, name)?.as_deref() {
                Some([x, z]) => Ok(Vec2::new(*x, *z)),
                Some(other) => bail!(
                    "steer: the option {name} needs 2 numbers, not {}",
                    other.len()
                ),
                None => bail!("steer: the option {name} is missing"),
            }
        };
        let model = required("model")?;
        if model < 0.0 || model.fract() != 0.0 {
            bail!("steer: the option model ({model}) must be a model's index");
        }
        Ok(Self {
            model: model as u32,
            min: point("min")?,
            max: point("max")?,
            obstacles: floats(options, "obstacles")?.unwrap_or_default(),
            goals: floats(options, "goals")?.unwrap_or_default(),
            agent_radius: required("agentRadius")?,
            walk_speed: required("walkSpeed")?,
        })
    }

    /// The view's steering spec of these fields.
    pub fn spec(&self) -> SteerSpec<'_> {
        SteerSpec {
            model: self.model,
            min: self.min,
            max: self.max,
            obstacles: &self.obstacles,
            goals: &self.goals,
            agent_radius: self.agent_radius,
            walk_speed: self.walk_speed,
        }
    }
}
