//! The structural cases as data: a [`Case`] is a name, the damage done to
//! the fixture's bytes and the error the reader must give — its kind
//! ([`Expect`]) and the text its message must mention — in the manner of
//! wgpu's declarative test parameters. One [`Runner`] loads every case,
//! prints a line per case (name, error kind, message) and fails once at the
//! end, listing every case that loaded, panicked, gave another kind of
//! error or a message that does not mention what it must.

use throng_core::FormatError;
use throng_core::format::VERSION;

use super::fixture::{Fixture, fix_checksum, fixture, kind, load};

/// The error a case must produce.
#[derive(Clone, Copy, Debug)]
pub enum Expect {
    /// `BadMagic`.
    BadMagic,
    /// `UnsupportedVersion` that found this version (and supports
    /// [`VERSION`]); its message must say `version N` of it.
    Version(u32),
    /// `Truncated`.
    Truncated,
    /// `Checksum`.
    Checksum,
    /// `Corrupt`: the bytes break a rule of the layout.
    Corrupt,
    /// `Invalid`: well-formed records that break a rule of the model.
    Invalid,
}

impl Expect {
    /// Whether `e` is of the kind expected.
    fn matches(self, e: &FormatError) -> bool {
        match (e, self) {
            (FormatError::BadMagic { .. }, Expect::BadMagic) => true,
            (FormatError::UnsupportedVersion { found, supported }, Expect::Version(v)) => {
                *found == v && *supported == VERSION
            }
            (FormatError::Truncated { .. }, Expect::Truncated) => true,
            (FormatError::Checksum { .. }, Expect::Checksum) => true,
            (FormatError::Corrupt(_), Expect::Corrupt) => true,
            (FormatError::Invalid(_), Expect::Invalid) => true,
            _ => false,
        }
    }
}

/// An edit of a copy of the fixture's bytes.
pub type Edit = fn(&Fixture, &mut Vec<u8>);

/// Whether the checksum is recomputed after a case's edit.
#[derive(Clone, Copy, Debug)]
pub enum Crc {
    /// Recomputed ([`fix_checksum`]): the edit reaches the structural
    /// checks behind the CRC.
    Fixed,
    /// Left as the edit left it: the checksum is what must catch it.
    AsEdited,
}

/// One structural case.
pub struct Case {
    /// What the case breaks (printed, and named on failure).
    pub name: &'static str,
    /// The error it must give.
    pub expect: Expect,
    /// Text its message must contain, every one.
    pub mentions: &'static [&'static str],
    /// Whether the checksum is recomputed after the edit.
    pub crc: Crc,
    /// The damage.
    pub edit: Edit,
}

/// A case whose edit is followed by a recomputed checksum.
pub const fn case(
    name: &'static str,
    expect: Expect,
    mentions: &'static [&'static str],
    edit: Edit,
) -> Case {
    Case {
        name,
        expect,
        mentions,
        crc: Crc::Fixed,
        edit,
    }
}

impl Case {
    /// This case with the stored checksum kept, so that the CRC sees the
    /// edit.
    pub const fn raw(self) -> Case {
        Case {
            crc: Crc::AsEdited,
            ..self
        }
    }
}

/// Runs cases and collects what went wrong.
#[derive(Default)]
pub struct Runner {
    failures: Vec<String>,
    run: usize,
}

impl Runner {
    /// Runs every case of `cases`.
    pub fn run_all(&mut self, cases: &[Case]) {
        for c in cases {
            self.run(c);
        }
    }

    /// Applies `case`'s edit to a copy of the fixture (recomputing the
    /// checksum where it says so) and checks the load's error.
    pub fn run(&mut self, case: &Case) {
        let f = fixture();
        let mut bytes = f.bytes.clone();
        (case.edit)(f, &mut bytes);
        if let Crc::Fixed = case.crc {
            fix_checksum(&mut bytes);
        }
        self.expect(case.name, &bytes, case.expect, case.mentions);
    }

    /// Loads `bytes` and expects the error `expect` with a message
    /// containing every one of `mentions`.
    pub fn expect(&mut self, name: &str, bytes: &[u8], expect: Expect, mentions: &[&str]) {
        self.run += 1;
        match load(bytes) {
            Err(panic) => self.failures.push(format!("{name}: PANIC {panic}")),
            Ok(Ok(_)) => self
                .failures
                .push(format!("{name}: loaded, expected {expect:?}")),
            Ok(Err(e)) => {
                let msg = e.to_string();
                println!("{name:<52} {:<18} {msg}", kind(&e));
                if !expect.matches(&e) {
                    self.failures
                        .push(format!("{name}: expected {expect:?}, got {e:?}"));
                }
                let version = match expect {
                    Expect::Version(v) => Some(format!("version {v}")),
                    _ => None,
                };
                for m in mentions.iter().copied().chain(version.as_deref()) {
                    if !msg.contains(m) {
                        self.failures
                            .push(format!("{name}: message {msg:?} does not mention {m:?}"));
                    }
                }
            }
        }
    }

    /// Prints how many cases ran; panics listing every failed one.
    pub fn finish(self) {
        println!("{} corruption cases", self.run);
        assert!(
            self.failures.is_empty(),
            "{} of {} cases failed:\n{}",
            self.failures.len(),
            self.run,
            self.failures.join("\n")
        );
    }
}
