//! Clip arguments (`--clip`, a layer's clip): a clip named by name or by
//! index into the model's clips.

use anyhow::{Result, bail};

/// Resolves a clip by exact name first, then by index.
pub fn resolve_clip(names: &[&str], arg: &str) -> Result<usize> {
    if let Some(i) = names.iter().position(|n| *n == arg) {
        return Ok(i);
    }
    match arg.parse::<usize>() {
        Ok(i) if i < names.len() => Ok(i),
        Ok(i) => bail!(
            "clip index {i} is out of range: the model has {} clips ({})",
            names.len(),
            names.join(", ")
        ),
        Err(_) => bail!(
            "no clip named {arg:?}; the model has: {}",
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_resolve_by_name_then_index() {
        let names = ["Survey", "Walk", "1"];
        assert_eq!(resolve_clip(&names, "Walk").unwrap(), 1);
        assert_eq!(
            resolve_clip(&names, "1").unwrap(),
            2,
            "an exact name wins over an index"
        );
        assert_eq!(resolve_clip(&names, "0").unwrap(), 0);
        let err = resolve_clip(&names, "Dance").unwrap_err().to_string();
        assert!(
            err.contains("Dance") && err.contains("Survey, Walk"),
            "{err}"
        );
        assert!(
            resolve_clip(&names, "7")
                .unwrap_err()
                .to_string()
                .contains("out of range")
        );
    }
}
