//! The `throng` command's library side: its argument grammar
//! ([`args`]). The commands themselves are the binary's (`main.rs`).
//!
//! ## Example
//!
//! ```
//! use throng_cli::args::bytes::parse_bytes;
//! use throng_cli::args::size::parse_size;
//!
//! assert_eq!(parse_bytes("1MiB"), Ok(1 << 20));
//! assert_eq!(parse_size("640x360"), Ok((640, 360)));
//! assert!(parse_size("640").is_err());
//! ```

pub mod args;
