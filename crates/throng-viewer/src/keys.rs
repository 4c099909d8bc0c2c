//! Key bindings: a pure function from a key press to an [`Action`].
//!
//! The window layer turns a winit key event into a [`Key`] (digits by
//! physical position, so Shift+digit and AZERTY layouts work; everything
//! else by the character the layout produces) and [`Mods`]; [`action_for`]
//! decides what it means. Held movement keys of the fly camera (WASD, Q/E)
//! are not actions: the window layer tracks them as held keys.
//!
//! [`HELP`] lists the bindings for the on-screen help; a test checks that
//! every listed key maps to an action.

/// A key, reduced to what the bindings distinguish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// A digit key `0`–`9` (top row or keypad), by physical position.
    Digit(u8),
    /// A key producing this character (lower-cased letters).
    Char(char),
    /// The space bar.
    Space,
    /// Escape.
    Escape,
    /// F1.
    F1,
    /// F12.
    F12,
    /// Anything else.
    Other,
}

/// Modifier keys held during a press.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mods {
    /// Shift.
    pub shift: bool,
    /// Control (or Command).
    pub ctrl: bool,
    /// Alt (or Option).
    pub alt: bool,
}

#[cfg(test)]
impl Mods {
    /// Shift only.
    pub const SHIFT: Self = Self {
        shift: true,
        ctrl: false,
        alt: false,
    };
}

/// Which instances an action applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Every instance.
    All,
    /// A random fifth of them.
    RandomFifth,
}

/// Fraction of the crowd that Shift+digit addresses.
pub const RANDOM_FRACTION: f32 = 0.2;

/// Seconds of a cross-fade started from the keyboard.
pub const FADE_SECONDS: f32 = 0.3;

/// What a key press asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Cross-fade to clip `clip` (0-based) over [`FADE_SECONDS`].
    FadeToClip {
        /// Clip index in file order.
        clip: usize,
        /// Which instances.
        target: Target,
    },
    /// Cross-fade to a random clip per instance.
    FadeToRandomClips {
        /// Which instances.
        target: Target,
    },
    /// Double the instance count.
    MoreInstances,
    /// Halve the instance count.
    FewerInstances,
    /// Pause or resume every instance.
    TogglePause,
    /// Halve the global playback speed.
    SlowerSpeed,
    /// Double the global playback speed.
    FasterSpeed,
    /// Show or hide the skeleton overlay.
    ToggleSkeletons,
    /// Switch between the rest pose and the clips.
    ToggleRestPose,
    /// Colour instances by their level of detail.
    ToggleLodTints,
    /// Put a prop on every instance's head, or take them off.
    ToggleProps,
    /// Layer an upper-body clip over every instance's clip, or remove it.
    ToggleUpperBody,
    /// Walk (steered on the GPU around the plaza on a GPU-driven renderer,
    /// wandering loops otherwise), or stand.
    ToggleWalking,
    /// Switch between the terrain (hills and a stair) and the flat plaza.
    ToggleTerrain,
    /// Switch between orbit and fly camera.
    ToggleFly,
    /// Frame the whole crowd again.
    FrameCrowd,
    /// Show or hide the HUD.
    ToggleHud,
    /// Save the next frame as a PNG in the working directory.
    Screenshot,
    /// Leave fly mode, or quit when not flying.
    Escape,
}

/// The action bound to `key` with `mods`, if any. Presses with Ctrl or Alt
/// are left to the system.
pub fn action_for(key: Key, mods: Mods) -> Option<Action> {
    if mods.ctrl || mods.alt {
        return None;
    }
    let target = if mods.shift {
        Target::RandomFifth
    } else {
        Target::All
    };
    Some(match key {
        Key::Digit(0) => Action::FadeToRandomClips { target },
        Key::Digit(d @ 1..=9) => Action::FadeToClip {
            clip: d as usize - 1,
            target,
        },
        Key::Char('+' | '=') => Action::MoreInstances,
        Key::Char('-' | '_') => Action::FewerInstances,
        Key::Space => Action::TogglePause,
        Key::Char('[' | '{') => Action::SlowerSpeed,
        Key::Char(']' | '}') => Action::FasterSpeed,
        Key::Char('b') => Action::ToggleSkeletons,
        Key::Char('r') => Action::ToggleRestPose,
        Key::Char('l') => Action::ToggleLodTints,
        Key::Char('p') => Action::ToggleProps,
        Key::Char('u') => Action::ToggleUpperBody,
        Key::Char('m') => Action::ToggleWalking,
        Key::Char('t') => Action::ToggleTerrain,
        Key::Char('f') => Action::ToggleFly,
        Key::Char('c') => Action::FrameCrowd,
        Key::Char('h') | Key::F1 => Action::ToggleHud,
        Key::F12 => Action::Screenshot,
        Key::Escape => Action::Escape,
        _ => return None,
    })
}

/// The bindings as `(keys, what they do)`, for the help panel.
pub const HELP: &[(&str, &str)] = &[
    ("1–9", "all cross-fade to clip k"),
    ("Shift+1–9", "a random 20 % do"),
    ("0 / Shift+0", "random clips"),
    ("+ / -", "double / halve instances"),
    ("Space", "pause"),
    ("[ / ]", "halve / double speed"),
    ("B", "skeletons (nearest 20)"),
    ("R", "rest pose / clips"),
    ("L", "colour by LOD (green, blue, magenta)"),
    ("P", "props on heads"),
    ("U", "upper body plays a layer over the clip"),
    ("M", "walk (steered, or loops) / stand"),
    ("T", "terrain (hills, a stair) / flat plaza"),
    ("F", "fly: WASD, Q/E, drag, Shift"),
    ("C", "frame the crowd"),
    ("H / F1", "hide / show the HUD"),
    ("F12", "save a screenshot"),
    ("Esc", "leave fly mode / quit"),
    ("left drag", "orbit"),
    ("right drag", "pan (middle too)"),
    ("wheel", "zoom"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_fade_everyone_and_shift_a_random_fifth() {
        assert_eq!(
            action_for(Key::Digit(1), Mods::default()),
            Some(Action::FadeToClip {
                clip: 0,
                target: Target::All
            })
        );
        assert_eq!(
            action_for(Key::Digit(9), Mods::SHIFT),
            Some(Action::FadeToClip {
                clip: 8,
                target: Target::RandomFifth
            })
        );
        assert_eq!(
            action_for(Key::Digit(0), Mods::default()),
            Some(Action::FadeToRandomClips {
                target: Target::All
            })
        );
    }

    #[test]
    fn plus_and_minus_with_or_without_shift() {
        for c in ['+', '='] {
            assert_eq!(
                action_for(Key::Char(c), Mods::default()),
                Some(Action::MoreInstances)
            );
            assert_eq!(
                action_for(Key::Char(c), Mods::SHIFT),
                Some(Action::MoreInstances)
            );
        }
        for c in ['-', '_'] {
            assert_eq!(
                action_for(Key::Char(c), Mods::default()),
                Some(Action::FewerInstances)
            );
        }
    }

    #[test]
    fn toggles_and_speed() {
        let none = Mods::default();
        assert_eq!(action_for(Key::Space, none), Some(Action::TogglePause));
        assert_eq!(action_for(Key::Char('['), none), Some(Action::SlowerSpeed));
        assert_eq!(action_for(Key::Char(']'), none), Some(Action::FasterSpeed));
        assert_eq!(
            action_for(Key::Char('b'), none),
            Some(Action::ToggleSkeletons)
        );
        assert_eq!(
            action_for(Key::Char('r'), none),
            Some(Action::ToggleRestPose)
        );
        assert_eq!(action_for(Key::Char('f'), none), Some(Action::ToggleFly));
        assert_eq!(
            action_for(Key::Char('l'), none),
            Some(Action::ToggleLodTints)
        );
        assert_eq!(action_for(Key::Char('p'), none), Some(Action::ToggleProps));
        assert_eq!(
            action_for(Key::Char('u'), none),
            Some(Action::ToggleUpperBody)
        );
        assert_eq!(action_for(Key::F1, none), Some(Action::ToggleHud));
        assert_eq!(action_for(Key::F12, none), Some(Action::Screenshot));
        assert_eq!(action_for(Key::Escape, none), Some(Action::Escape));
    }

    #[test]
    fn unbound_keys_and_system_chords_do_nothing() {
        let none = Mods::default();
        // Fly-camera movement keys are held keys, not actions.
        for c in ['w', 'a', 's', 'd', 'q', 'e'] {
            assert_eq!(action_for(Key::Char(c), none), None, "{c}");
        }
        assert_eq!(action_for(Key::Other, none), None);
        let ctrl = Mods {
            ctrl: true,
            ..Mods::default()
        };
        assert_eq!(
            action_for(Key::Digit(1), ctrl),
            None,
            "Ctrl+1 is the system's"
        );
        let alt = Mods {
            alt: true,
            ..Mods::default()
        };
        assert_eq!(action_for(Key::Char('r'), alt), None);
    }

    #[test]
    fn every_key_in_the_help_is_bound() {
        // The first token of each keyboard entry of the help, as a key.
        let parse = |s: &str| -> Option<(Key, Mods)> {
            let (mods, s) = match s.strip_prefix("Shift+") {
                Some(rest) => (Mods::SHIFT, rest),
                None => (Mods::default(), s),
            };
            let first = s.split([' ', '–']).next()?;
            let key = match first {
                "Space" => Key::Space,
                "Esc" => Key::Escape,
                "F1" => Key::F1,
                "F12" => Key::F12,
                d if d.len() == 1 && d.as_bytes()[0].is_ascii_digit() => {
                    Key::Digit(d.as_bytes()[0] - b'0')
                }
                c if c.chars().count() == 1 => Key::Char(c.chars().next()?.to_ascii_lowercase()),
                _ => return None, // mouse entries
            };
            Some((key, mods))
        };
        let mut checked = 0;
        for (keys, what) in HELP {
            if let Some((key, mods)) = parse(keys) {
                assert!(
                    action_for(key, mods).is_some(),
                    "help lists {keys:?} ({what}) but it is unbound"
                );
                checked += 1;
            }
        }
        assert!(checked >= 10, "parsed only {checked} help entries");
    }
}
