//! Clip events from JSON: a sidecar file `MODEL.events.json` and glTF
//! animation `extras`.
//!
//! Sidecar: `{"ClipName": [{"time": 0.25, "name": "footstep", "data": …}, …], …}`.
//! Extras of an animation: `{"events": [{"time": …, "name": …, "data": …}]}`.
//! `data` is any JSON value (kept as its JSON text); `time` is seconds in
//! `[0, duration]`. Errors name the file or JSON path, the clip and the event.

use std::path::Path;

use crate::scene::Scene;
use serde_json::Value;
use throng_core::limits::MAX_EVENTS_FILE_BYTES;
use throng_core::model::ClipEvent;

use crate::error::BakeError;

/// The sidecar path of a model: `dir/stem.events.json`.
pub fn sidecar_path(model: &Path) -> std::path::PathBuf {
    let stem = model
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    model.with_file_name(format!("{stem}.events.json"))
}

/// Parses one event object; `at` names it in errors.
pub fn parse_event(v: &Value, clip: u32, at: &str) -> Result<ClipEvent, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| format!("{at}: expected an object with \"time\" and \"name\""))?;
    let time = obj
        .get("time")
        .and_then(Value::as_f64)
        .ok_or_else(|| format!("{at}.time: expected a number of seconds"))?;
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{at}.name: expected a string"))?;
    let data = match obj.get("data") {
        None | Some(Value::Null) => String::new(),
        Some(d) => d.to_string(),
    };
    Ok(ClipEvent {
        clip,
        time: time as f32,
        name: name.to_owned(),
        data,
    })
}

/// Reads a sidecar file and adds its events to `scene`.
pub fn add_sidecar(scene: &mut Scene, path: &Path) -> Result<usize, BakeError> {
    let fail = |msg: String| BakeError::Events(format!("{}: {msg}", path.display()));
    let text = throng_core::input_file::read_text(path, MAX_EVENTS_FILE_BYTES)
        .map_err(|e| BakeError::Events(throng_core::error::Chain(&e).to_string()))?;
    let json: Value =
        serde_json::from_str(&text).map_err(|e| fail(format!("not valid JSON: {e}")))?;
    let map = json
        .as_object()
        .ok_or_else(|| fail("expected an object mapping clip names to event lists".into()))?;
    let mut added = 0;
    for (clip_name, list) in map {
        let clip = scene
            .clips
            .iter()
            .position(|c| &c.name == clip_name)
            .ok_or_else(|| {
                fail(format!(
                    "no clip named {clip_name:?}; the model has: {}",
                    scene
                        .clips
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        let items = list
            .as_array()
            .ok_or_else(|| fail(format!("{clip_name:?}: expected a list of events")))?;
        for (i, v) in items.iter().enumerate() {
            let e = parse_event(v, clip as u32, &format!("{clip_name:?}[{i}]")).map_err(fail)?;
            check_time(scene, &e).map_err(|m| fail(format!("{clip_name:?}[{i}]: {m}")))?;
            scene.events.push(e);
            added += 1;
        }
    }
    Ok(added)
}

/// Checks an event's time lies inside its clip.
pub fn check_time(scene: &Scene, e: &ClipEvent) -> Result<(), String> {
    let d = scene.clips[e.clip as usize].duration();
    if e.time.is_finite() && (0.0..=d).contains(&e.time) {
        Ok(())
    } else {
        Err(format!("time {} s is outside the clip (0..={d} s)", e.time))
    }
}
