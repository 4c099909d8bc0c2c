//! The TypeScript declarations of the option objects (`CrowdViewOptions`,
//! `SteerOptions`) that wasm-bindgen adds to `throng_web.d.ts`; read by
//! [`super::options`].

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** How a CrowdView draws (every field optional). */
export interface CrowdViewOptions {
    /** "auto" (WebGPU, else WebGL2), "webgpu" or "webgl2". */
    backend?: "auto" | "webgpu" | "webgl2";
    /** Two-phase occlusion culling on the GPU-driven path (default true). */
    occlusion?: boolean;
    /** Half side of a checkered ground about the origin (0: none). */
    groundHalf?: number;
    /** Side of one checker. */
    groundCell?: number;
}

/** What CrowdView.steer lays out. */
export interface SteerOptions {
    /** The model whose instances are steered. */
    model: number;
    /** The walkable rectangle's corners, world [x, z]. */
    min: [number, number] | Float32Array;
    max: [number, number] | Float32Array;
    /** Round obstacles: x, z, radius each. */
    obstacles?: Float32Array | number[];
    /** Goal rectangles: min x, min z, max x, max z each (at least one). */
    goals: Float32Array | number[];
    /** An agent's radius, world units. */
    agentRadius: number;
    /** The model's walk, world units a second at speed 1. */
    walkSpeed: number;
}
"#;
