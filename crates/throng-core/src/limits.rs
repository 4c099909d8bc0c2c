//! Every limit and layout constant of Throng, defined once.
//!
//! Other crates and the WGSL shaders take these values from here: Rust code by
//! name, WGSL through the generated prelude (`throng_render::shader_prelude`),
//! never through a second literal.

/// Most bone influences kept per vertex. Extra influences are dropped by the
/// baker (the 4 largest are kept and renormalised) and reported.
pub const MAX_INFLUENCES: usize = 4;

/// Texels per palette matrix: the top three rows of a 3x4 affine matrix, one
/// RGBA texel each.
pub const TEXELS_PER_MATRIX: u32 = 3;

/// Largest bone-texture layer side (W ≤ 1024, docs/design/layout.md#texel-packing).
pub const MAX_LAYER_SIZE: u32 = 1024;

/// Default frames per second at which clips are baked.
pub const DEFAULT_FPS: f32 = 30.0;

/// Highest baking rate accepted (a guard against typos such as `--fps 30000`),
/// and the default ceiling of the error-bounded rate search (`--max-fps`).
pub const MAX_FPS: f32 = 240.0;

/// Default bound on the skinned-vertex error of a bake between baked frames,
/// relative to the model's bounding radius (`--max-error`): each clip's rate
/// is raised from `--fps` until its measured error stays below it
/// (docs/BAKE_ERROR.md).
pub const DEFAULT_MAX_ERROR: f32 = 1e-3;

/// Most source key times measured per baked frame interval (besides its
/// midpoint), the ones nearest the interval's middle: a source far denser
/// than the bake cannot make the error check cost more than this.
pub const MAX_KEY_SAMPLES_PER_INTERVAL: usize = 3;

/// Most clips in one model (the runtime stores clip indices in 16 bits,
/// `u16::MAX` meaning "none").
pub const MAX_CLIPS: u32 = u16::MAX as u32 - 1;

/// Most palette entries (bones) in one model. Vertex bone indices are `u16`.
pub const MAX_BONES: u32 = u16::MAX as u32;

/// Most instances per package: one draw call with the records in a uniform
/// buffer. 170 × 96 B = 16,320 B fits the 16 KiB uniform-binding floor of
/// downlevel and WebGL2 adapters.
pub const PACKAGE_WIDTH: u32 = 170;

/// Size in bytes of one GPU instance record ([`crate::gpu::InstanceRecord`]).
pub const INSTANCE_RECORD_SIZE: usize = 96;

/// Most rows of a model's variant palette ([`crate::variety::Palette`]):
/// the looks an instance's variant index chooses among.
pub const MAX_PALETTE_ROWS: u32 = 4096;

/// Submeshes an instance can hide one by one: bits of its hidden mask
/// ([`crate::variety::Look::hidden`]), one per submesh of the finest LOD.
pub const TOGGLEABLE_SUBMESHES: u32 = 32;

/// Hidden masks per model of a crowd that get draw groups of their own on
/// the GPU-driven path ([`crate::gpu::GpuModelInfo::hidden_masks`]): an
/// instance wearing one is drawn without its hidden submeshes, whose
/// vertices are then never shaded; an instance wearing another mask is
/// drawn with every submesh, the hidden ones moved out of view.
pub const MAX_LOOK_CLASSES: u32 = 16;

/// Texels per row of a model's morph texture ([`crate::morph`]: the
/// weights of every frame, then the deltas): 2048, the least
/// `max_texture_dimension_2d` of WebGL2-class adapters.
pub const MORPH_TEXTURE_WIDTH: u32 = 2048;

/// Morph weights per texel of the morph texture (RGBA).
pub const MORPH_WEIGHTS_PER_TEXEL: u32 = 4;

/// Morph weights per palette matrix (its 3 × 4 floats): a layered
/// instance's palette holds its bones' matrices, then its layered morph
/// weights packed this many to a matrix ([`crate::layers::palette_entries`]).
pub const PALETTE_WEIGHTS_PER_MATRIX: u32 = TEXELS_PER_MATRIX * 4;

/// Layers an instance can have over its base pose (with the base's two
/// cross-faded clips, up to 5 clips in all).
pub const MAX_EXTRA_LAYERS: usize = 3;

/// Texels per morph delta: (position xyz, slot), (normal xyz, 0).
pub const MORPH_DELTA_TEXELS: u32 = 2;

/// Most morph slots (animated weights) of one model. A slot is one target
/// of one mesh instance; 4096 is 64 faces of 64 blend shapes each.
pub const MAX_MORPH_SLOTS: u32 = 4096;

/// Global frame index of the rest pose. Every bake starts its frame table with
/// one rest-pose frame, so models without clips still have a pose to draw.
pub const REST_FRAME: u32 = 0;

/// Largest `.throng` file the reader accepts (4 GiB): a corrupted length can
/// never make the loader allocate without bound. Also the largest glTF or
/// GLB file, and the largest file the provenance hash reads.
pub const MAX_FILE_SIZE: u64 = 4 << 30;

/// Largest events sidecar file (JSON) the bake reads.
pub const MAX_EVENTS_FILE_BYTES: u64 = 64 << 20;

/// Largest image file (PNG or JPEG, encoded) a glTF may name: 64 MiB. The
/// importer reads no more than this from an image URI and refuses a larger
/// file, so a hostile URI cannot make it read without bound.
pub const MAX_IMAGE_BYTES: u64 = 64 << 20;

/// Largest side of an image the bake decodes and a `.throng` carries
/// (8192 texels, 256 MiB as RGBA8): the importer reads an image's size
/// before decoding it and drops a larger one with a warning, so a small
/// PNG that claims a huge size cannot make the bake allocate without bound.
/// A device whose textures are smaller drops the top mip levels at upload.
pub const MAX_IMAGE_SIDE: u32 = 8192;

/// Default bake budget (1 GiB): the largest estimated size of a baked model
/// (bone texture, per-frame bounds and root motion, meshes, images) that
/// `throng bake` produces unless told otherwise (`--max-bake-bytes`). The
/// estimate is made before anything is sampled.
pub const DEFAULT_MAX_BAKE_BYTES: u64 = 1 << 30;

/// Most components (elements × components per element) that the glTF
/// accessors without a `bufferView` of one import may declare, all together:
/// their elements are zeros, so their size is not bounded by the file's own
/// bytes. 2²⁴ components (128 MiB as the importer's f64), for example 4 Mi
/// zero-filled `VEC4` joints.
pub const MAX_UNBACKED_COMPONENTS: usize = 1 << 24;

/// Most bytes the meshopt-compressed buffer views of one glTF import
/// (`EXT_meshopt_compression`, `KHR_meshopt_compression`) may decode to,
/// all together (256 MiB): a view declares its decoded size (count ×
/// stride), which the file's own bytes do not bound, so a few bytes could
/// otherwise claim gigabytes.
pub const MAX_DECODED_VIEW_BYTES: usize = 256 << 20;
