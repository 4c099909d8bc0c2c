//! The `throng` command's library side: its argument grammar
//! ([`args`]). The commands themselves are the binary's (`main.rs`).

pub mod args;
