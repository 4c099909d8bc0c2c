//! Look classes: the hidden masks a crowd's instances of each model wear,
//! up to [`MAX_LOOK_CLASSES`] per model, noted as instances are spawned
//! or given a look. On the GPU-driven path each class gets draw groups of
//! its own that draw only the submeshes it shows
//! ([`throng_core::gpu::GpuModelInfo::group`]): an outfit an instance does
//! not wear is never drawn for it, its vertices never shaded. Masks past
//! the first [`MAX_LOOK_CLASSES`] of a model share class 0 with the
//! instances that hide nothing: drawn with every submesh, the hidden ones
//! moved out of view in the vertex stage (what every other path does).
//!
//! A class, once noted, stays while the model is in the crowd (an instance
//! wearing it may come back; a class nobody wears costs a few empty
//! indirect draws). [`Crowd::clear`] forgets them.

use throng_core::limits::MAX_LOOK_CLASSES;
use throng_core::variety::Look;

use super::{Crowd, ModelId};

/// One model's look classes: the hidden masks of classes 1, 2, …
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct LookClasses {
    masks: Vec<u32>,
}

impl LookClasses {
    /// Notes `hidden`; true if it became a class.
    fn note(&mut self, hidden: u32) -> bool {
        if hidden == 0
            || self.masks.len() >= MAX_LOOK_CLASSES as usize
            || self.masks.contains(&hidden)
        {
            return false;
        }
        self.masks.push(hidden);
        true
    }

    /// The hidden masks of classes 1, 2, …
    pub(super) fn masks(&self) -> &[u32] {
        &self.masks
    }
}

impl Crowd {
    /// Notes the look an instance of model `m` now wears.
    pub(super) fn note_look(&mut self, m: u16, look: Look) {
        if self.models[m as usize].look_classes.note(look.hidden) {
            self.looks_generation += 1;
        }
    }

    /// The hidden masks of `model`'s look classes 1, 2, … (module docs):
    /// those its instances wore first, at most [`MAX_LOOK_CLASSES`].
    pub fn look_classes(&self, model: ModelId) -> &[u32] {
        self.models
            .get(model.0 as usize)
            .map_or(&[], |m| m.look_classes.masks())
    }

    /// Changes whenever a model gets a look class (and so the crowd's draw
    /// groups change: [`Crowd::gpu_tables`]).
    pub fn look_classes_generation(&self) -> u64 {
        self.looks_generation
    }

    /// Forgets every model's look classes.
    pub(super) fn forget_look_classes(&mut self) {
        for m in &mut self.models {
            m.look_classes = LookClasses::default();
        }
        self.looks_generation += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::test_model;
    use super::*;
    use crate::crowd::Spawn;

    fn hiding(hidden: u32) -> Spawn {
        Spawn {
            look: Look { variant: 0, hidden },
            ..Spawn::default()
        }
    }

    #[test]
    fn spawns_and_looks_note_classes_and_the_tables_follow() {
        let (a, b) = (test_model(1.0), test_model(2.0));
        let mut crowd = Crowd::new();
        let (ma, mb) = (crowd.add_model(&a), crowd.add_model(&b));
        let before = crowd.look_classes_generation();
        let plain_groups = crowd.gpu_tables().group_count;
        crowd.spawn(ma, hiding(0)).unwrap();
        assert_eq!(crowd.look_classes_generation(), before, "hiding nothing");
        let id = crowd.spawn(ma, hiding(0b10)).unwrap();
        crowd.spawn(ma, hiding(0b10)).unwrap();
        crowd
            .set_look(
                id,
                Look {
                    variant: 0,
                    hidden: 0b01,
                },
            )
            .unwrap();
        // A refused look notes nothing.
        assert!(
            crowd
                .set_look(
                    id,
                    Look {
                        variant: 9,
                        hidden: 0b100
                    }
                )
                .is_err()
        );
        assert_eq!(crowd.look_classes(ma), &[0b10, 0b01]);
        assert_eq!(crowd.look_classes(mb), &[] as &[u32]);
        assert!(crowd.look_classes_generation() > before);

        // Model a's groups grow by its classes; b's follow a's.
        let t = crowd.gpu_tables();
        let (ia, ib) = (t.models[0], t.models[1]);
        assert_eq!(
            (ia.look_classes, ia.hidden_masks[..2].to_vec()),
            (2, vec![0b10, 0b01])
        );
        assert_eq!(ia.group_count(), 3 * 2 * ia.lod_count);
        assert_eq!(ib.group_base, ia.group_count());
        assert_eq!(t.group_count, ia.group_count() + ib.group_count());
        assert!(t.group_count > plain_groups);

        // Clearing forgets them, and the tables must be built again.
        let noted = crowd.look_classes_generation();
        crowd.clear();
        assert_eq!(crowd.look_classes(ma), &[] as &[u32]);
        assert_ne!(crowd.look_classes_generation(), noted);
    }

    #[test]
    fn masks_become_classes_once_in_order_up_to_the_limit() {
        let mut c = LookClasses::default();
        assert!(!c.note(0), "hiding nothing is class 0");
        assert!(c.note(0b100));
        assert!(c.note(0b001));
        assert!(!c.note(0b100), "once");
        assert_eq!(c.masks(), &[0b100, 0b001]);
        for m in 1..=64u32 {
            c.note(m << 8);
        }
        assert_eq!(c.masks().len(), MAX_LOOK_CLASSES as usize);
        assert_eq!(&c.masks()[..3], &[0b100, 0b001, 1 << 8]);
    }
}
