//! Outfits for a crowd: a model worn as [`DEMO_OUTFITS`] outfits, each a
//! copy of its finest LOD's submeshes drawn from primitives of its own (so
//! each outfit has its own bits of `Look::hidden`), and the look of an
//! instance wearing one. What the outfits benchmark, `throng render
//! --outfits`, the viewer's and the page's mixed crowds wear: on the
//! GPU-driven path an instance's other outfits are left out of its draws
//! (`throng_crowd`'s look classes).

use throng_core::variety::Look;
use throng_crowd::crowd::{Crowd, CrowdError, InstanceId, ModelHandle};

/// Outfits of an outfitted model ([`outfitted`]).
pub const DEMO_OUTFITS: u32 = 8;

/// `handle`'s finest LOD alone (no impostor), worn as [`DEMO_OUTFITS`]
/// outfits: each outfit a copy of every submesh, drawn from primitives of
/// its own (so each copy has its own bit of `Look::hidden`). An instance
/// wearing one ([`outfit_look`]) looks like the model; with the others
/// drawn too, it shades [`DEMO_OUTFITS`] times the vertices. `None` for a
/// model with more than 4 submeshes (the outfits would need more toggle
/// bits than a look has).
pub fn outfitted(handle: &ModelHandle) -> Option<ModelHandle> {
    let mut m = handle.model().clone();
    let n = m.lods[0].submeshes.len() as u32;
    if n == 0 || n * DEMO_OUTFITS > throng_core::limits::TOGGLEABLE_SUBMESHES {
        return None;
    }
    m.name = format!("{} in {DEMO_OUTFITS} outfits", m.name);
    m.lods.truncate(1);
    m.impostor = None;
    let one = std::mem::take(&mut m.lods[0].submeshes);
    let primitives = one.iter().map(|s| s.source_primitive).max().unwrap_or(0) + 1;
    m.lods[0].submeshes = (0..DEMO_OUTFITS)
        .flat_map(|k| {
            one.iter().map(move |s| throng_core::model::Submesh {
                source_primitive: s.source_primitive + k * primitives,
                ..s.clone()
            })
        })
        .collect();
    ModelHandle::new(m).ok()
}

/// The look of an instance of [`outfitted`]`(handle)` wearing outfit `k`
/// (of [`DEMO_OUTFITS`]): every other outfit's submeshes hidden.
pub fn outfit_look(handle: &ModelHandle, k: u32) -> Look {
    let n = handle.model().lods[0].submeshes.len() as u32 / DEMO_OUTFITS;
    let all = (1u64 << (n * DEMO_OUTFITS)) - 1;
    let worn = ((1u64 << n) - 1) << (n * (k % DEMO_OUTFITS));
    Look {
        variant: 0,
        hidden: (all & !worn) as u32,
    }
}

/// Dresses a crowd in outfits: instance `ids[i]`, of model
/// `handles[i mod n]` (each [`outfitted`]), wears outfit `i`, keeping its
/// palette row.
pub fn wear_outfits(
    crowd: &mut Crowd,
    ids: &[InstanceId],
    handles: &[ModelHandle],
) -> Result<(), CrowdError> {
    for (i, &id) in ids.iter().enumerate() {
        let look = Look {
            variant: crowd.look(id)?.variant,
            ..outfit_look(&handles[i % handles.len()], i as u32)
        };
        crowd.set_look(id, look)?;
    }
    Ok(())
}
