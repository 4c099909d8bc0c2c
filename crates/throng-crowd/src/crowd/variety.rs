//! Per-instance looks: the palette row an instance wears and the submeshes
//! it hides ([`Look`], `throng_core::variety`). A look is instance state:
//! writing it logs a state change, which the GPU-driven path uploads once;
//! no frame pays for it afterwards.

use super::{Change, Crowd, CrowdError, InstanceId};
use throng_core::variety::Look;

impl Crowd {
    /// Sets an instance's look. The variant must be a row of its model's
    /// palette (row 0 for a model without one).
    pub fn set_look(&mut self, id: InstanceId, look: Look) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        self.check_look(self.metas[d].model, look)?;
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
}
