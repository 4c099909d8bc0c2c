//! Per-instance looks: the palette row an instance wears and the submeshes
//! it hides ([`Look`], `throng_core::variety`), and a spawn varied by a
//! seeded [`Variety`] (row, size, toggles). A look is instance state:
//! writing it logs a state change, which the GPU-driven path uploads once;
//! no frame pays for it afterwards.

use glam::{Mat4, Vec3};

use super::{Change, Crowd, CrowdError, InstanceId, Spawn};
use throng_core::variety::{Look, Variety};

impl Spawn {
    /// This spawn with instance `index`'s pick of `variety`: its look, and
    /// its transform scaled uniformly about the model's origin by the
    /// picked size.
    pub fn varied(self, variety: &Variety, index: u64) -> Spawn {
        let (look, scale) = variety.pick(index);
        Spawn {
            transform: self.transform * Mat4::from_scale(Vec3::splat(scale)),
            look,
            ..self
        }
    }
}

impl Crowd {
    /// Sets an instance's look. The variant must be a row of its model's
    /// palette (row 0 for a model without one).
    pub fn set_look(&mut self, id: InstanceId, look: Look) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        let m = self.metas[d].model;
        self.check_look(m, look)?;
        self.note_look(m, look);
        self.looks[d] = look;
        self.touch(Change::state(d));
        Ok(())
    }

    /// An instance's look.
    pub fn look(&self, id: InstanceId) -> Result<Look, CrowdError> {
        Ok(self.looks[self.dense(id)?])
    }

    /// Refuses a variant past model `m`'s palette rows.
    pub(super) fn check_look(&self, m: u16, look: Look) -> Result<(), CrowdError> {
        let handle = &self.models[m as usize].handle;
        let rows = handle.variants();
        if look.variant as usize >= rows {
            return Err(CrowdError::NoSuchVariant {
                model: handle.model().name.clone(),
                variant: look.variant,
                rows,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::test_model;
    use super::*;
    use crate::crowd::{ChangeCursor, Changes, DrawList, Spawn};
    use throng_core::variety::Palette;

    #[test]
    fn looks_are_checked_logged_and_recorded() {
        let plain = test_model(1.0);
        let columns = throng_core::variety::column_count(plain.model());
        let dressed = plain
            .with_palette(Palette::generated(columns, 3, 1).unwrap())
            .unwrap();
        assert_ne!(plain.key(), dressed.key());
        let wide = Palette::generated(columns + 1, 2, 1).unwrap();
        let err = plain.with_palette(wide).unwrap_err();
        assert!(err.to_string().contains("materials"), "{err}");
        let mut crowd = Crowd::new();
        let (p, m) = (crowd.add_model(&plain), crowd.add_model(&dressed));
        let bad = Look {
            variant: 1,
            hidden: 0,
        };
        let err = crowd
            .spawn(
                p,
                Spawn {
                    look: bad,
                    ..Spawn::default()
                },
            )
            .unwrap_err();
        assert!(err.to_string().contains("1 palette rows"), "{err}");
        let id = crowd.spawn(m, Spawn::default()).unwrap();
        let mut cursor = ChangeCursor::default();
        let _ = crowd.changes(&mut cursor);
        let look = Look {
            variant: 2,
            hidden: 0b101,
        };
        crowd.set_look(id, look).unwrap();
        assert_eq!(crowd.look(id).unwrap(), look);
        assert_eq!(
            crowd.changes(&mut cursor),
            Changes::Slots(&[Change::state(0)])
        );
        assert!(
            crowd
                .set_look(
                    id,
                    Look {
                        variant: 3,
                        hidden: 0
                    }
                )
                .is_err()
        );
        assert_eq!(crowd.gpu_instance(0).look, look);
        let mut list = DrawList::default();
        crowd.build_draw_list(None, &mut list);
        assert_eq!(list.visible(), 1);
        assert!(
            list.records.iter().all(|r| r.look == look),
            "{:?}",
            list.records
        );
    }

    #[test]
    fn a_varied_spawn_takes_the_pick_and_scales_about_the_origin() {
        let variety = Variety {
            variants: 3,
            scale: [0.5, 2.0],
            toggles: vec![(0, 1.0)],
            seed: 9,
        };
        let at = Mat4::from_translation(Vec3::new(5.0, 0.0, 0.0));
        for i in 0..20 {
            let spawn = Spawn {
                transform: at,
                ..Spawn::default()
            }
            .varied(&variety, i);
            let (look, scale) = variety.pick(i);
            assert_eq!(spawn.look, look);
            assert_eq!(spawn.look.hidden, 1);
            let (s, _, t) = spawn.transform.to_scale_rotation_translation();
            assert!(s.abs_diff_eq(Vec3::splat(scale), 1e-6), "{s} vs {scale}");
            assert_eq!(t, Vec3::new(5.0, 0.0, 0.0));
        }
    }
}
