// The palette pre-pass: each invocation evaluates one instance's palette —
// its base pose (clip cross-faded as on the plain path) with up to
// MAX_EXTRA_LAYERS animation layers over it — once per bone, parents first,
// into a palette buffer that skinning then reads as ready matrices, then
// its morph weights with the layers applied after them.
// Twin of throng_core::layers::layered_palette and layered_weights,
// operation for operation.
//
// A bone no layer reaches keeps the base palette matrix exactly. A reached
// bone's local pose in any clip is G(parent)^-1 G(bone), G = P bind, from
// the baked palette P; layers blend it in TRS space (pose.wgsl) and the
// result is re-attached to the parent's blended global, read back from the
// palette written a moment before (G(parent) = out(parent) bind(parent)).

// #import prelude
// #import skinning
// #import pose

// One layer. Mirrors throng_core::gpu::GpuLayer.
struct GpuLayer {
    frame0: u32,
    frame1: u32,
    t: f32,
    weight: f32,
    ref0: u32,
    ref1: u32,
    ref_t: f32,
    mode: u32,
    mask: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// An instance's base pose and layers. Mirrors throng_core::gpu::GpuLayerSet.
struct GpuLayerSet {
    frame0: u32,
    frame1: u32,
    t: f32,
    prev0: u32,
    prev1: u32,
    prev_t: f32,
    fade: f32,
    layer_count: u32,
    palette: u32,
    // Read by the foot IK pass after this one (foot_ik.wgsl).
    foot_ik: u32,
    clip_ground: f32,
    pad: u32,
    layers: array<GpuLayer, MAX_EXTRA_LAYERS>,
}

// One bone of the skeleton table. Mirrors throng_core::gpu::GpuBone.
struct GpuBone {
    bind: Rows,
    inverse_bind: Rows,
    parent: u32,
    ordered: u32,
    pad0: u32,
    pad1: u32,
}

// Mirrors throng_core::gpu::PaletteParams.
struct PaletteParams {
    set_count: u32,
    first_set: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: PaletteParams;
@group(0) @binding(1) var<storage, read> sets: array<GpuLayerSet>;
@group(0) @binding(2) var<storage, read> bones: array<GpuBone>;
// Per mask: per bone (weight, 1 if the bone or an ancestor has weight),
// then per morph slot (the weight at the slot's bone, 0)
// (throng_core::layers::BoneMask::gpu_entries).
@group(0) @binding(3) var<storage, read> masks: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read_write> palettes: array<Rows>;

fn frames_rows(bone: u32, f0: u32, f1: u32, t: f32) -> Rows {
    return lerp_rows(bone_rows(bone, f0), bone_rows(bone, f1), t);
}

fn skeleton_bone(b: u32) -> GpuBone {
    return bones[min(b, arrayLength(&bones) - 1u)];
}

fn mask_entry(layer: GpuLayer, bone: u32) -> vec2<f32> {
    if (layer.mask == NO_MASK) {
        return vec2<f32>(1.0, 1.0);
    }
    return masks[min(layer.mask + bone, arrayLength(&masks) - 1u)];
}

// Frames of a pose: a clip's two frames, cross-faded (fade < 1) with
// another's (the base pose), or alone (a layer, its additive reference).
struct Frames {
    f0: u32,
    f1: u32,
    t: f32,
    fade: f32,
    p0: u32,
    p1: u32,
    pt: f32,
}

// The palette matrix: throng_core::baked::blended_bone_rows.
fn palette_rows(bone: u32, f: Frames) -> Rows {
    let current = frames_rows(bone, f.f0, f.f1, f.t);
    if (f.fade >= 1.0) {
        return current;
    }
    return lerp_rows(frames_rows(bone, f.p0, f.p1, f.pt), current, f.fade);
}

fn global_of(bone: u32, f: Frames) -> Rows {
    if (bone == NO_PARENT) {
        return IDENTITY_ROWS;
    }
    return rows_mul(palette_rows(bone, f), skeleton_bone(bone).bind);
}

fn local_of(bone: u32, parent: u32, f: Frames) -> LocalPose {
    let g = global_of(bone, f);
    if (parent == NO_PARENT) {
        return decompose(g);
    }
    return decompose(rows_mul(rows_inverse(global_of(parent, f)), g));
}

fn single(f0: u32, f1: u32, t: f32) -> Frames {
    return Frames(f0, f1, t, 1.0, f0, f1, t);
}

// A morph slot's weight at a pose's frames, as palette_rows() blends a
// matrix: throng_core::morph::Morphs::blended_weight.
fn frames_weight(slot: u32, f: Frames) -> f32 {
    let a = morph_weight_at(slot, f.f0);
    let current = a + (morph_weight_at(slot, f.f1) - a) * f.t;
    if (f.fade >= 1.0) {
        return current;
    }
    let b = morph_weight_at(slot, f.p0);
    let previous = b + (morph_weight_at(slot, f.p1) - b) * f.pt;
    return previous + (current - previous) * f.fade;
}

// Morph weight `slot` of set `s` with its layers:
// throng_core::layers::layered_weights.
fn layered_weight(slot: u32, s: GpuLayerSet, count: u32, base: Frames) -> f32 {
    var w = frames_weight(slot, base);
    for (var l = 0u; l < count; l++) {
        let layer = s.layers[l];
        if (layer.mode == LAYER_WEIGHTS) {
            // The preset's (weight, set) at the slot; none without one.
            let e = mask_entry(layer, model.bone_count + slot);
            let m = layer.weight * e.y;
            if (layer.mask != NO_MASK && m > 0.0) {
                w = w + (e.x - w) * m;
            }
            continue;
        }
        let m = layer.weight * mask_entry(layer, model.bone_count + slot).x;
        if (m <= 0.0) {
            continue;
        }
        let sampled = frames_weight(slot, single(layer.frame0, layer.frame1, layer.t));
        if (layer.mode == LAYER_ADDITIVE) {
            w = w + (sampled - frames_weight(slot, single(layer.ref0, layer.ref1, layer.ref_t))) * m;
        } else {
            w = w + (sampled - w) * m;
        }
    }
    return w;
}

@compute @workgroup_size(WORKGROUP)
fn evaluate(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.set_count) {
        return;
    }
    let s = sets[min(params.first_set + id.x, arrayLength(&sets) - 1u)];
    let count = min(s.layer_count, MAX_EXTRA_LAYERS);
    let base = Frames(s.frame0, s.frame1, s.t, s.fade, s.prev0, s.prev1, s.prev_t);
    let last = arrayLength(&palettes) - 1u;
    for (var i = 0u; i < model.bone_count; i++) {
        let bone = min(skeleton_bone(i).ordered, model.bone_count - 1u);
        let entry = skeleton_bone(bone);
        var reached = false;
        for (var l = 0u; l < count; l++) {
            let layer = s.layers[l];
            reached = reached || (layer.mode != LAYER_WEIGHTS && layer.weight > 0.0 && mask_entry(layer, bone).y > 0.0);
        }
        let out = min(s.palette + bone, last);
        if (!reached) {
            palettes[out] = palette_rows(bone, base);
            continue;
        }
        var pose = local_of(bone, entry.parent, base);
        for (var l = 0u; l < count; l++) {
            let layer = s.layers[l];
            let w = layer.weight * mask_entry(layer, bone).x;
            if (w <= 0.0 || layer.mode == LAYER_WEIGHTS) {
                continue;
            }
            let sampled = local_of(bone, entry.parent, single(layer.frame0, layer.frame1, layer.t));
            if (layer.mode == LAYER_ADDITIVE) {
                let r = local_of(bone, entry.parent, single(layer.ref0, layer.ref1, layer.ref_t));
                pose = blend_additive(pose, r, sampled, w);
            } else {
                pose = blend_override(pose, sampled, w);
            }
        }
        var g = compose(pose);
        if (entry.parent != NO_PARENT) {
            let p = min(entry.parent, model.bone_count - 1u);
            let gp = rows_mul(palettes[min(s.palette + p, last)], skeleton_bone(p).bind);
            g = rows_mul(gp, g);
        }
        palettes[out] = rows_mul(g, entry.inverse_bind);
    }
    // Then the morph weights, PALETTE_WEIGHTS_PER_MATRIX to a matrix after
    // the bones' (none without morph targets).
    let rows = (model.morph_slots + PALETTE_WEIGHTS_PER_MATRIX - 1u) / PALETTE_WEIGHTS_PER_MATRIX;
    for (var r = 0u; r < rows; r++) {
        var packed: array<f32, PALETTE_WEIGHTS_PER_MATRIX>;
        for (var k = 0u; k < PALETTE_WEIGHTS_PER_MATRIX; k++) {
            let slot = r * PALETTE_WEIGHTS_PER_MATRIX + k;
            if (slot < model.morph_slots) {
                packed[k] = layered_weight(slot, s, count, base);
            }
        }
        palettes[min(s.palette + model.bone_count + r, last)] = Rows(
            vec4<f32>(packed[0], packed[1], packed[2], packed[3]),
            vec4<f32>(packed[4], packed[5], packed[6], packed[7]),
            vec4<f32>(packed[8], packed[9], packed[10], packed[11]),
        );
    }
}
