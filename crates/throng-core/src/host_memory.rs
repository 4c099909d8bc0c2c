//! How much memory the host can still give this process.
//!
//! The guard that turns an absurd request — a hundred million instances, a
//! giant render target on a software adapter whose "GPU memory" is host
//! memory — into an error that names the limit, before anything is
//! allocated, instead of a visit from the kernel's out-of-memory killer.
//! Linux only (`MemAvailable` in `/proc/meminfo`); elsewhere the amount is
//! unknown and checks pass, leaving allocation failures to the allocator.

/// Bytes the host can still give without swapping, if known.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&text)
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn parse_mem_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line.split_whitespace().skip(1);
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => value.checked_mul(1024),
        None => Some(value),
        Some(_) => None,
    }
}

/// `Ok` if `needed` bytes fit in what the host can still give (or that is
/// unknown); else `Err(available)`.
pub fn check(needed: u64) -> Result<(), u64> {
    match available_bytes() {
        Some(available) if needed > available => Err(available),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mem_available() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(parse_mem_available(text), Some(2048 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: lots kB\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_host_cannot_give_an_exabyte() {
        assert!(available_bytes().is_some_and(|b| b > 0));
        assert!(check(1 << 60).is_err());
        assert!(check(1).is_ok());
    }
}
