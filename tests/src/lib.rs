//! Shared helpers of Throng's integration tests, whichever crate they live
//! in: paths of the bundled assets, comparison with named tolerances, a glTF
//! builder ([`gltf_builder`]), the material test model ([`material_models`]),
//! models with morph targets ([`morph_models`]), golden images
//! ([`golden`]), the render tests' scenes ([`scenes`]), reading GPU results
//! back ([`readback`]), the GPU-driven path's passes without a renderer
//! ([`culling`]), WGSL checks ([`wgsl`]) and the steering tests' overlap
//! measure ([`crowd_overlap`]).

use std::path::PathBuf;

pub mod crowd_overlap;
pub mod culling;
pub mod gltf_builder;
pub mod golden;
pub mod material_models;
pub mod morph_models;
pub mod readback;
pub mod rng;
pub mod scenes;
pub mod walker;
pub mod wgsl;

/// For tests: a GPU, or a panic that says how to get one.
///
/// A GPU test never passes without having run: with no adapter it fails,
/// in CI and on a developer's machine alike, and the message names the
/// packages that give a software adapter. `WGPU_BACKEND` chooses the
/// backend (the test script runs the GPU tests on Vulkan and on GL); the
/// adapter found is printed so that a test log says what it ran on.
///
/// # Panics
///
/// When no adapter of the requested backend exists or it refuses a device.
pub fn require_gpu(test: &str) -> throng_render::Gpu {
    match throng_render::Gpu::headless() {
        Ok(gpu) => {
            eprintln!("{test}: on {}", gpu.adapter_summary());
            gpu
        }
        Err(e) => panic!(
            "{test}: this GPU test needs an adapter and found none ({e}). \
             Run ./tools/test.sh, which installs Mesa's software drivers \
             (mesa-vulkan-drivers libvulkan1 for Vulkan; libegl1 libegl-mesa0 \
             libgl1-mesa-dri for GL), or install them yourself."
        ),
    }
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Path of a bundled asset.
pub fn asset(name: &str) -> PathBuf {
    repo_root().join("assets").join(name)
}

/// A bundled model baked from its file with the default options, as
/// `throng bake` bakes it (`throng_bake::bake_file`), ready for a crowd.
pub fn bake_asset(name: &str) -> throng_crowd::crowd::ModelHandle {
    let options = throng_bake::BakeOptions::default();
    let (model, _) = throng_bake::bake_file(&asset(name), &options, &|_, _| {})
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    throng_crowd::crowd::ModelHandle::new(model).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The eight bundled glTF models.
pub const ALL_MODELS: [&str; 8] = [
    "khronos_Fox.glb",
    "khronos_CesiumMan.gltf",
    "khronos_RiggedSimple.glb",
    "khronos_RiggedFigure.glb",
    "khronos_SimpleSkin.gltf",
    "khronos_RecursiveSkeletons.glb",
    "gszauer_Woman.gltf",
    "gszauer_dq_cubicspline.gltf",
];

use glam::Vec3;
use throng_bake::reference::SkinnedPrimitive;

/// Baked f32 skinned positions must equal the CPU reference within this
/// fraction of the model's bounding radius.
pub const BAKED_F32_TOLERANCE: f32 = 1e-5;

/// Worst mismatch between two skinnings of the same source primitives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Worst {
    /// Largest distance.
    pub dist: f32,
    /// Source (node, mesh, primitive) of the worst vertex.
    pub source: (u32, u32, u32),
    /// Its vertex index.
    pub vertex: usize,
    /// Expected and found positions.
    pub expected: Vec3,
    /// Found position.
    pub found: Vec3,
}

/// Compares two skinnings primitive by primitive, vertex by vertex.
///
/// # Panics
/// If they do not describe the same primitives in the same order.
pub fn worst_difference(expected: &[SkinnedPrimitive], found: &[SkinnedPrimitive]) -> Worst {
    assert_eq!(expected.len(), found.len(), "different primitive counts");
    let mut worst = Worst::default();
    for (e, f) in expected.iter().zip(found) {
        assert_eq!(
            (e.node, e.mesh, e.primitive),
            (f.node, f.mesh, f.primitive),
            "primitives in a different order"
        );
        assert_eq!(
            e.positions.len(),
            f.positions.len(),
            "vertex counts differ for {:?}",
            (e.node, e.mesh, e.primitive)
        );
        for (v, (a, b)) in e.positions.iter().zip(&f.positions).enumerate() {
            let d = (*a - *b).length();
            if d > worst.dist || d.is_nan() {
                worst = Worst {
                    dist: d,
                    source: (e.node, e.mesh, e.primitive),
                    vertex: v,
                    expected: *a,
                    found: *b,
                };
            }
        }
    }
    worst
}

/// CRC-32 (IEEE 802.3 / zlib: reflected polynomial `0xEDB88320`, initial value
/// and final XOR `0xFFFFFFFF`), written from the description in
/// `docs/FORMAT.md` rather than taken from the crate the writer uses, so the
/// tests check the documented checksum.
pub fn crc32_ieee(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc = TABLE[((crc ^ b as u32) & 0xFF) as usize] ^ (crc >> 8);
    }
    crc ^ 0xFFFF_FFFF
}

/// An import that must fail: panics if it succeeded, else prints and
/// returns the message with its causes, as the CLI prints it.
pub fn expect_refusal(
    case: &str,
    result: Result<throng_bake::Imported, throng_bake::ImportError>,
) -> String {
    match result {
        Ok(imported) => panic!(
            "{case}: imported without error ({} nodes, {} images, warnings {:?})",
            imported.scene.nodes.len(),
            imported.scene.images.len(),
            imported.warnings
        ),
        Err(e) => {
            let msg = throng_core::error::Chain(&e).to_string();
            println!("{case}: {msg}");
            msg
        }
    }
}

/// Asserts that `msg` contains every one of `parts`.
pub fn assert_mentions(case: &str, msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(
            msg.contains(p),
            "{case}: the message should mention {p:?}: {msg}"
        );
    }
}

/// A crowd holding `handle`'s model and one instance spawned with `spawn`.
pub fn one_instance(
    handle: &throng_crowd::crowd::ModelHandle,
    spawn: throng_crowd::crowd::Spawn,
) -> (
    throng_crowd::crowd::Crowd,
    throng_crowd::crowd::ModelId,
    throng_crowd::crowd::InstanceId,
) {
    let mut crowd = throng_crowd::crowd::Crowd::new();
    let model = crowd.add_model(handle);
    let id = crowd
        .spawn(model, spawn)
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    (crowd, model, id)
}
