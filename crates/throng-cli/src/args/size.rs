//! Image-size arguments (`--size`): `WIDTHxHEIGHT`, both positive.

/// Parses `WIDTHxHEIGHT`.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?}: expected WIDTHxHEIGHT, e.g. 512x512"))?;
    let w: u32 = w.trim().parse().map_err(|_| format!("{s:?}: bad width"))?;
    let h: u32 = h.trim().parse().map_err(|_| format!("{s:?}: bad height"))?;
    if w == 0 || h == 0 {
        return Err(format!("{s:?}: width and height must be positive"));
    }
    Ok((w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("512x256").unwrap(), (512, 256));
        assert_eq!(parse_size("64X64").unwrap(), (64, 64));
        assert!(parse_size("0x5").is_err());
        assert!(parse_size("big").is_err());
    }
}
