//! Empty: its manifest is the point (see Cargo.toml).
