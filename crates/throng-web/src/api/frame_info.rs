//! What a frame drew, as JavaScript reads it (`FrameInfo`: the frame loop's
//! callback and `render` give one).

use wasm_bindgen::prelude::*;

/// What a frame drew.
#[wasm_bindgen]
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameInfo {
    /// Frames drawn by this view so far.
    pub frame: u32,
    /// Live instances.
    pub instances: u32,
    /// Instances drawn (in view and, with occlusion culling, not hidden).
    pub visible: u32,
    /// Instances in view found hidden by occlusion culling (GPU-driven
    /// path; counted a frame or two late).
    pub occluded: u32,
    /// Draw calls.
    pub draws: u32,
    /// Instances drawn as impostors.
    pub impostors: u32,
    /// Models of the view.
    pub models: u32,
    /// KiB of the bone textures the models bind.
    #[wasm_bindgen(js_name = boneKiB)]
    pub bone_kib: u32,
    /// KiB those would take more if none were shared.
    #[wasm_bindgen(js_name = sharedKiB)]
    pub shared_kib: u32,
    /// Hidden parts left out of the draws.
    #[wasm_bindgen(js_name = partsCulled)]
    pub parts_culled: u32,
    /// Frames per second over the last half second of the loop (0 before).
    pub fps: f64,
    /// Milliseconds of CPU the frame took (advance, prepare, record).
    #[wasm_bindgen(js_name = cpuMs)]
    pub cpu_ms: f64,
}
