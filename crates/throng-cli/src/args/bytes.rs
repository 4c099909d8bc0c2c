//! Byte-size arguments (`--max-bytes`, `--impostor-budget`, soak bounds):
//! a count with an optional binary unit.

/// Parses `123`, `512KiB`, `64MiB` or `1GiB` (unit case-insensitive).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let (digits, shift) = [("gib", 30), ("mib", 20), ("kib", 10), ("b", 0)]
        .iter()
        .find_map(|&(unit, shift)| lower.strip_suffix(unit).map(|d| (d.trim(), shift)))
        .unwrap_or((lower.as_str(), 0));
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{t:?} is not a size in bytes (e.g. 1073741824, 512MiB, 2GiB)"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{t:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_and_without_units() {
        assert_eq!(parse_bytes("1234"), Ok(1234));
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("2 gib"), Ok(2 << 30));
        assert_eq!(parse_bytes("3KiB"), Ok(3 << 10));
        assert_eq!(parse_bytes("10B"), Ok(10));
        assert!(parse_bytes("1.5GiB").is_err());
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("99999999999GiB").is_err());
    }
}
