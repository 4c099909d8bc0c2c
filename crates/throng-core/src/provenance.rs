//! Where a bake came from: a content hash of everything it read, the
//! options it was made with and the baker that made it — what `throng bake`
//! compares to skip a bake whose output is up to date, and what `throng
//! inspect` shows.
//!
//! The hash itself is computed by the offline side (`throng_bake::
//! provenance`); this crate only carries it, in the optional `PROV` section
//! of the file (`docs/FORMAT.md`). A file without one (an older writer of
//! the same format version) is never up to date.

/// Longest options or baker text a provenance may carry, in bytes.
pub const MAX_PROVENANCE_TEXT: usize = 4096;

/// The inputs, options and baker of a bake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// BLAKE3 of the bake's inputs: the model, every file it references,
    /// its events and LOD files (each with its name and length; a missing
    /// optional input hashed as missing).
    pub inputs: [u8; 32],
    /// How many files were hashed into [`Provenance::inputs`].
    pub files: u32,
    /// The bake's options, as canonical text (same options, same text).
    pub options: String,
    /// The baker's name and version.
    pub baker: String,
}

impl Provenance {
    /// The input hash as 64 lowercase hex digits.
    pub fn inputs_hex(&self) -> String {
        self.inputs.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Checks the texts' lengths ([`MAX_PROVENANCE_TEXT`]).
    pub fn validate(&self) -> Result<(), String> {
        for (what, text) in [("options", &self.options), ("baker", &self.baker)] {
            if text.len() > MAX_PROVENANCE_TEXT {
                return Err(format!(
                    "provenance {what} text is {} bytes, more than {MAX_PROVENANCE_TEXT}",
                    text.len()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lowercase_and_64_digits() {
        let p = Provenance {
            inputs: [0xab; 32],
            files: 1,
            options: "fps=30".into(),
            baker: "throng-bake 0.1.0".into(),
        };
        assert_eq!(p.inputs_hex(), "ab".repeat(32));
        assert!(p.validate().is_ok());
        let long = Provenance {
            options: "x".repeat(MAX_PROVENANCE_TEXT + 1),
            ..p.clone()
        };
        assert!(long.validate().unwrap_err().contains("options"));
        assert!(
            p != (Provenance {
                files: 2,
                ..p.clone()
            })
        );
    }
}
