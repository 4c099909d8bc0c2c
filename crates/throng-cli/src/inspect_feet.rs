//! `throng inspect`'s feet: for a `.throng`, the joints that are its feet
//! and, per clip, the clip's ground and when each foot is planted, as the
//! bake stored them (`throng_core::contacts`; measured from the frames for
//! a model without them).

use serde_json::{Value, json};
use throng_core::BakedModel;
use throng_core::contacts::{CONTACT_BAND, FOOT_BAND, clip_contacts};

/// The feet and their contacts as JSON (`null` for a model without feet).
pub fn baked_feet_json(m: &BakedModel) -> Value {
    let clips = clip_contacts(m);
    let Some(first) = clips.first().filter(|c| !c.feet.is_empty()) else {
        return Value::Null;
    };
    let name = |b: u32| m.bones[b as usize].name.clone();
    json!({
        "stored": !m.contacts.is_empty(),
        "foot_band": FOOT_BAND,
        "contact_band": CONTACT_BAND,
        "feet": first.feet.iter().map(|f| json!({ "bone": f.bone, "name": name(f.bone) })).collect::<Vec<_>>(),
        "clips": clips.iter().zip(&m.clips).map(|(c, info)| json!({
            "name": info.name,
            "ground": c.ground,
            "feet": c.feet.iter().map(|f| json!({
                "bone": f.bone, "lift": f.lift,
                "phases": f.phases.iter().map(|p| [p.0, p.1]).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// The feet's lines of the text summary: which joints, then per clip its
/// ground and each foot's planted phases.
pub fn text(s: &mut String, v: &Value) {
    use std::fmt::Write;
    let f = &v["feet"];
    let Some(feet) = f["feet"].as_array() else {
        let _ = writeln!(
            s,
            "  feet      none (no leaf joint near the bottom of the model)"
        );
        return;
    };
    let names: Vec<&str> = feet
        .iter()
        .map(|x| x["name"].as_str().unwrap_or("?"))
        .collect();
    let _ = writeln!(
        s,
        "  feet      {}: {} (leaf joints within {:.0} % of the height from the bottom; planted within {:.0} % of it above their lowest; {})",
        names.len(),
        names.join(", "),
        f["foot_band"].as_f64().unwrap_or(0.0) * 100.0,
        f["contact_band"].as_f64().unwrap_or(0.0) * 100.0,
        if f["stored"].as_bool() == Some(true) {
            "stored by the bake"
        } else {
            "measured now: the file does not store them"
        }
    );
    for clip in f["clips"].as_array().into_iter().flatten() {
        let _ = writeln!(
            s,
            "    {:24} ground {:.2}",
            clip["name"].as_str().unwrap_or(""),
            clip["ground"].as_f64().unwrap_or(0.0)
        );
        for (foot, name) in clip["feet"].as_array().into_iter().flatten().zip(&names) {
            let phases: Vec<String> = foot["phases"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    format!(
                        "{:.3}–{:.3}",
                        p[0].as_f64().unwrap_or(0.0),
                        p[1].as_f64().unwrap_or(0.0)
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                "      {:22} lift {:.2}, planted {} s",
                name,
                foot["lift"].as_f64().unwrap_or(0.0),
                if phases.is_empty() {
                    "never".to_string()
                } else {
                    phases.join(", ")
                }
            );
        }
    }
}
