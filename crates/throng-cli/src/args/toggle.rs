//! Submesh toggles (`throng render --hide`): which submesh of the finest
//! LOD a share of the instances hides, `SUBMESH:CHANCE`.

use throng_core::limits::TOGGLEABLE_SUBMESHES;

/// Parses `1:0.5` (submesh 1 hidden on half of the instances).
pub fn parse_toggle(s: &str) -> Result<(u32, f32), String> {
    let t = s.trim();
    let (submesh, chance) = t
        .split_once(':')
        .ok_or_else(|| format!("{t:?} is not SUBMESH:CHANCE (e.g. 1:0.5)"))?;
    let submesh: u32 = submesh
        .trim()
        .parse()
        .map_err(|_| format!("{t:?}: {submesh:?} is not a submesh index"))?;
    if submesh >= TOGGLEABLE_SUBMESHES {
        return Err(format!(
            "{t:?}: only the first {TOGGLEABLE_SUBMESHES} submeshes can be hidden"
        ));
    }
    let chance: f32 = chance
        .trim()
        .parse()
        .ok()
        .filter(|c: &f32| (0.0..=1.0).contains(c))
        .ok_or_else(|| format!("{t:?}: {chance:?} is not a chance from 0 to 1"))?;
    Ok((submesh, chance))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toggles_parse_and_bad_ones_say_why() {
        assert_eq!(parse_toggle("1:0.5"), Ok((1, 0.5)));
        assert_eq!(parse_toggle(" 0 : 1 "), Ok((0, 1.0)));
        for bad in ["1", "x:0.5", "1:2", "1:NaN", "32:0.5", "-1:0.5", "1:"] {
            assert!(parse_toggle(bad).is_err(), "{bad}");
        }
        assert!(parse_toggle("40:0.1").unwrap_err().contains("first 32"));
    }
}
