//! Animated impostors, the far end of a model's LOD chain (issue #15; the
//! bake and the runtime build on this): the views an impostor is captured
//! from, how a view direction picks and blends them, and how many views,
//! frames and texels an atlas gets within a memory budget.
//!
//! **Views: hemi-octahedral.** A crowd stands on the ground and is seen from
//! above its feet, so the views cover the upper hemisphere of model space
//! (+Y up) only. For the same number of views, the hemi-octahedral map
//! spaces them about √2 closer than the full octahedral one; a direction
//! below the horizon is read as the horizon (a character seen slightly from
//! below looks like one seen from the side at impostor distances). The map
//! is trig-free both ways: `(x, z) / (|x| + |y| + |z|)` rotated by 45° into
//! the unit square. Views sit on the lattice points of a `side × side` grid
//! of that square, so the grid's edges are exactly the horizon; a direction
//! blends the three views of the lattice triangle around it with
//! barycentric weights, which are exact at the views and continuous between
//! them.
//!
//! **Frames.** Each clip gets `frames` captures evenly over its duration;
//! the runtime picks the frames around the instance's clip time.
//!
//! **Atlas.** Cells of `cell × cell` texels, in the order (clip, frame,
//! view), packed row by row into square 2D-array layers of at most
//! [`MAX_LAYER_SIZE`](crate::limits::MAX_LAYER_SIZE) texels a side, as the bone texture is. Two images:
//! colour with coverage, and the view-space normal with the ambient
//! occlusion and coverage; and a third, the surface (metalness, roughness, glow and
//! material), where the model's materials vary over its surface
//! ([`captures_surface`]). Stored in the plan's [`TextureCodec`] (BC7 by
//! default, one byte a texel an image; cells are then multiples of the
//! 4-texel block, so no block straddles two cells).
//!
//! One file per concern: the views (`views.rs`), the plan (`plan.rs`), the
//! captured atlas (`atlas.rs`, below the model that holds it) and what an
//! impostor draws from its model (`surface.rs`, above it); all re-exported
//! here.

pub(crate) mod atlas;
mod plan;
mod surface;
mod views;

pub use crate::texture_codec::TextureCodec;
pub use atlas::ImpostorAtlas;
pub use plan::{
    AtlasPlan, DEFAULT_BUDGET_BYTES, DEFAULT_SCREEN_HEIGHT, MIN_PLAN, PlanError, PlanRequest,
    default_screen_size,
};
pub use surface::{captures_surface, frame_table, surface_emission, surface_id_code};
pub use views::{ViewGrid, hemi_oct_decode, hemi_oct_encode, view_basis};
