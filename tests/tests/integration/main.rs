//! Cross-crate integration tests, one binary (a module per concern, so a build
//! links once): every bundled model baked and checked against the CPU
//! reference, hand-worked reference cases, the bake's error bound, events,
//! root motion, layers, LODs, morphs, tangents and materials at import,
//! malformed and hostile glTF, the .throng reader against every damage, the
//! format document against the structs, GPU index bounds, bone queries and
//! attachments, and the crate graph and the floors of each crate.

mod attachments;
mod bake_assets;
mod bone_queries;
mod clips_from;
mod compressed_gltf;
mod contacts;
mod crate_graph;
mod error_bound;
mod events;
mod foot_ik;
mod format_doc;
mod format_robustness;
mod gpu_index_bounds;
mod herd;
mod hostile_gltf;
mod ktx2_textures;
mod layers;
mod lod;
mod malformed_gltf;
mod materials_import;
mod morphs;
mod reference_cases;
mod root_motion;
mod tangents;
