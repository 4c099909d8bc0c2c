// The GPU-driven path's cull pass: from each instance's state and the
// crowd clock, the frame's draw list, as throng_crowd's DrawPass builds it on
// the CPU (same arithmetic, same order of operations):
//
// 1. `classify` (one invocation per instance): frames and fade from the
//    clock, bounds (union of both clips while fading), frustum test, LOD by
//    projected size with hysteresis (state kept per instance per view), then
//    a slot in its draw group (model, LOD, fading, look class) by an atomic
//    counter. The look class is the instance's hidden mask's among its
//    model's (`look_class`): its group's draws leave out the submeshes that
//    mask hides, so their vertices are never shaded; class 0 (no class)
//    draws them all, the hidden ones moved out of view in the vertex stage.
//    With occlusion culling it runs twice a frame (docs/design/occlusion.md):
//    the early phase places only the instances in view that were visible
//    last frame (the visibility bit of their LOD state); after they are
//    drawn and a depth pyramid is built from their depth, the late phase
//    tests every instance in view against the pyramid, keeps the answer as
//    the bit, and places those visible now that the early phase did not.
// 2. `offsets` (one invocation): groups laid out back to back (prefix sum),
//    and every indirect draw's instance count and first instance.
// 3. `scatter` (one invocation per instance): the visible instance's
//    InstanceRecord written at its group's offset plus its slot.
//
// Each entry point uses only the bindings it needs (pipelines are made with
// layouts derived per entry point, so none needs more than 8 storage
// buffers).

// #import prelude
// #import dispatch
// #import instance_record
// #import clock
// #import gpu_instance
// #import pyramid_layout

// Mirrors throng_core::gpu::CullView.
struct CullView {
    planes: array<vec4<f32>, 6>,
    eye: vec4<f32>,
    now_lo: u32,
    now_hi: u32,
    instance_count: u32,
    flags: u32,
    lod_scale: f32,
    group_count: u32,
    draw_count: u32,
    pad: u32,
    clip_from_world: mat4x4<f32>,
    // Level 0's width and height, levels, unused.
    pyramid: vec4<u32>,
    // With CULL_PREVIOUS: the crowd clock one frame before (low, high),
    // unused, unused.
    previous: vec4<u32>,
}

// Mirrors throng_core::gpu::DrawSpec.
struct DrawSpec {
    group: u32,
    index_count: u32,
    first_index: u32,
    base_vertex: i32,
}

// wgpu's DrawIndexedIndirectArgs.
struct DrawIndexedArgs {
    index_count: u32,
    instance_count: u32,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

const NOT_DRAWN: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> view: CullView;
@group(0) @binding(1) var<storage, read> instances: array<GpuInstance>;
@group(0) @binding(12) var<storage, read> transforms: array<GpuTransform>;
@group(0) @binding(2) var<storage, read> models: array<GpuModelInfo>;
@group(0) @binding(3) var<storage, read> clips: array<GpuClip>;
@group(0) @binding(4) var<storage, read> lod_sizes: array<f32>;
@group(0) @binding(5) var<storage, read_write> lod_state: array<u32>;
// Per instance: (group, slot in group), or NOT_DRAWN; then, across the
// band of the cross-fade to the impostor, the impostor half's (group, slot)
// and the level in the top bits of the group (else NOT_DRAWN).
@group(0) @binding(6) var<storage, read_write> placement: array<vec4<u32>>;
// First DRAWN_WORDS words (throng_core::gpu::DRAWN_WORDS): the box of the
// spheres in view (min x, y, z, max x, y, z, as order-preserving u32
// encodings of f32), how many (IN_VIEW_WORD), how many were found occluded
// (OCCLUDED_WORD) and how many this phase placed (PLACED_WORD); then one
// counter per draw group.
@group(0) @binding(7) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> group_first: array<u32>;
@group(0) @binding(9) var<storage, read> draws: array<DrawSpec>;
@group(0) @binding(10) var<storage, read_write> indirect: array<DrawIndexedArgs>;
@group(0) @binding(11) var<storage, read_write> records: array<InstanceRecord>;
// The late phase's depth pyramid (R32Float, standard-ordered depth: the
// farthest of each texel's footprint), its even levels in one atlas and
// its odd ones in another (shaders/pyramid_layout.wgsl); a 1×1 stand-in
// for other phases.
// Where each record's instance was one frame before (the `previous`
// stage, with CULL_PREVIOUS): beside `records`, slot for slot; and the
// instances' transforms of that frame (all zeros: none, the instance is
// new, so now's).
@group(0) @binding(15) var<storage, read_write> previous_records: array<PreviousRecord>;
@group(0) @binding(16) var<storage, read> previous_transforms: array<GpuTransform>;
@group(0) @binding(13) var pyramid_even: texture_2d<f32>;
@group(0) @binding(14) var pyramid_odd: texture_2d<f32>;

// The pyramid's texel `p` of `level`.
fn pyramid_at(p: vec2<u32>, level: u32) -> f32 {
    let at = level_origin(view.pyramid.xy, level) + p;
    if (level & 1u) == 0u {
        return textureLoad(pyramid_even, at, 0).r;
    }
    return textureLoad(pyramid_odd, at, 0).r;
}

// An f32 as a u32 whose unsigned order is the float order.
fn ordered(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

// Frames and weight at clip time `time`. Mirrors FrameMap::frames_at.
struct FramePair {
    frame0: u32,
    frame1: u32,
    t: f32,
}

fn frames_at(clip: GpuClip, time: f32) -> FramePair {
    if clip.frames_per_second == 0.0 {
        return FramePair(clip.first_frame, clip.first_frame, 0.0);
    }
    let last = f32(clip.frame_count - 1u);
    let x = clamp(clamp(time, 0.0, clip.duration) * clip.frames_per_second, 0.0, last);
    let f0 = min(u32(x), clip.frame_count - 2u);
    return FramePair(clip.first_frame + f0, clip.first_frame + f0 + 1u, clamp(x - f32(f0), 0.0, 1.0));
}

fn has_clip(track: GpuTrack) -> bool {
    return (track.clip & 0xffffu) != NO_CLIP;
}

fn clip_of(model: GpuModelInfo, track: GpuTrack) -> GpuClip {
    let c = min(track.clip & 0xffffu, model.clip_count - 1u);
    return clips[min(model.clip_base + c, arrayLength(&clips) - 1u)];
}

fn track_frames(model: GpuModelInfo, track: GpuTrack, ticks: vec2<u32>) -> FramePair {
    let clip = clip_of(model, track);
    return frames_at(clip, track_time(track, ticks, clip.duration));
}

// Ticks from the instance's anchor to the clock `now` (low, high). A
// clock behind the anchor (never, for one crowd) reads as the anchor.
fn ticks_since_anchor(inst: GpuInstance, now: vec2<u32>) -> vec2<u32> {
    let ticks = sub64(now, vec2<u32>(inst.anchor_lo, inst.anchor_hi));
    return select(ticks, vec2<u32>(0u, 0u), (ticks.y & 0x80000000u) != 0u);
}

// What an instance shows now: its record minus the tint. Mirrors
// throng_crowd's blend_of.
struct Shown {
    current: FramePair,
    previous: FramePair,
    fade: f32,
}

fn shown(inst: GpuInstance, model: GpuModelInfo) -> Shown {
    let since = ticks_since_anchor(inst, vec2<u32>(view.now_lo, view.now_hi));
    var current = FramePair(REST_FRAME, REST_FRAME, 0.0);
    if has_clip(inst.current) {
        current = track_frames(model, inst.current, since);
    }
    if has_clip(inst.previous) {
        let w = clamp(inst.fade0 + inst.fade_rate * ticks_to_seconds(since), 0.0, 1.0);
        if w < 1.0 {
            return Shown(current, track_frames(model, inst.previous, since), w);
        }
    }
    return Shown(current, current, 1.0);
}

fn track_sphere(model: GpuModelInfo, track: GpuTrack) -> vec4<f32> {
    if has_clip(track) {
        return clip_of(model, track).sphere;
    }
    return model.rest_sphere;
}

// Mirrors throng_crowd's sphere_union.
fn sphere_union(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    let d = b.xyz - a.xyz;
    let dist = length(d);
    if dist + b.w <= a.w {
        return a;
    }
    if dist + a.w <= b.w {
        return b;
    }
    let r = (dist + a.w + b.w) * 0.5;
    let c = a.xyz + d * ((r - a.w) / max(dist, 1.17549435e-38));
    return vec4<f32>(c, r);
}

// World bounding sphere. Mirrors throng_crowd's world_sphere.
fn world_sphere(inst: GpuInstance, t: GpuTransform, model: GpuModelInfo, fading: bool) -> vec4<f32> {
    var s = track_sphere(model, inst.current);
    if fading {
        s = sphere_union(s, track_sphere(model, inst.previous));
    }
    let c = vec4<f32>(s.xyz, 1.0);
    let center = vec3<f32>(dot(t.row0, c), dot(t.row1, c), dot(t.row2, c));
    let c0 = vec3<f32>(t.row0.x, t.row1.x, t.row2.x);
    let c1 = vec3<f32>(t.row0.y, t.row1.y, t.row2.y);
    let c2 = vec3<f32>(t.row0.z, t.row1.z, t.row2.z);
    let scale = sqrt(max(max(dot(c0, c0), dot(c1, c1)), dot(c2, c2)));
    return vec4<f32>(center, s.w * scale);
}

// Mirrors throng_crowd::crowd::select_lod.
fn first_at(model: GpuModelInfo, size: f32, scale: f32) -> u32 {
    let last = model.lod_count - 1u;
    for (var t = 0u; t < model.lod_count; t++) {
        if size >= lod_sizes[min(model.lod_base + t, arrayLength(&lod_sizes) - 1u)] * scale {
            return t;
        }
    }
    return last;
}

// Mirrors throng_crowd::crowd::impostor_fade_level.
fn impostor_fade_level(size: f32, threshold: f32) -> u32 {
    let low = threshold * (1.0 - LOD_HYSTERESIS);
    let f = (size - low) / (2.0 * LOD_HYSTERESIS * threshold);
    let levels = f32(LOD_DITHER_LEVELS);
    return u32(clamp(round(f * levels), 0.0, levels));
}

// Bits of a placement's group word below the cross-fade level.
const LEVEL_SHIFT: u32 = 24u;

fn select_lod(model: GpuModelInfo, size: f32, current: u32) -> u32 {
    let last = model.lod_count - 1u;
    let finer = first_at(model, size, 1.0 + LOD_HYSTERESIS);
    let coarser = first_at(model, size, 1.0 - LOD_HYSTERESIS);
    if finer < current {
        return finer;
    }
    if coarser > current {
        return coarser;
    }
    return min(current, last);
}

// The instance of an invocation of a per-instance stage, or NOT_DRAWN past
// the crowd's end.
fn instance_index(inv: Invocation) -> u32 {
    let i = invocation_index(inv);
    if i >= view.instance_count || i >= arrayLength(&instances) || i >= arrayLength(&transforms) {
        return NOT_DRAWN;
    }
    return i;
}

fn model_of(inst: GpuInstance) -> GpuModelInfo {
    return models[min(inst.model & ~INSTANCE_LAYERED, arrayLength(&models) - 1u)];
}

// Adds a visible sphere to the view's drawn box and count (what the light
// is fitted to).
fn add_drawn(sphere: vec4<f32>) {
    atomicMin(&counts[0], ordered(sphere.x - sphere.w));
    atomicMin(&counts[1], ordered(sphere.y - sphere.w));
    atomicMin(&counts[2], ordered(sphere.z - sphere.w));
    atomicMax(&counts[3], ordered(sphere.x + sphere.w));
    atomicMax(&counts[4], ordered(sphere.y + sphere.w));
    atomicMax(&counts[5], ordered(sphere.z + sphere.w));
    atomicAdd(&counts[IN_VIEW_WORD], 1u);
}

// An instance's model-space box: its clip's bounds (the rest pose's
// without a clip), the union of both clips' while fading, as centre and
// half extents. Tighter than the sphere the frustum test uses, for the
// occlusion test.
struct LocalBox {
    centre: vec3<f32>,
    half: vec3<f32>,
}

fn track_box(model: GpuModelInfo, track: GpuTrack) -> LocalBox {
    if has_clip(track) {
        let clip = clip_of(model, track);
        return LocalBox(clip.sphere.xyz, clip.half_extent.xyz);
    }
    return LocalBox(model.rest_sphere.xyz, model.rest_half_extent.xyz);
}

fn local_box(inst: GpuInstance, model: GpuModelInfo, fading: bool) -> LocalBox {
    let a = track_box(model, inst.current);
    if !fading {
        return a;
    }
    let b = track_box(model, inst.previous);
    let lo = min(a.centre - a.half, b.centre - b.half);
    let hi = max(a.centre + a.half, b.centre + b.half);
    return LocalBox((lo + hi) * 0.5, (hi - lo) * 0.5);
}

// True if the box (model space, placed by `t`) is certainly hidden behind
// the depth of the pyramid: the nearest depth of its eight corners is
// farther than the farthest depth the pyramid holds over their screen
// rectangle (widened by a texel of level 0), read at the level where the
// rectangle spans at most 2×2 texels. Never for a box that reaches the
// near plane, nor where nothing was drawn, nor without a pyramid.
fn occluded(b: LocalBox, t: GpuTransform) -> bool {
    let levels = view.pyramid.z;
    if levels == 0u {
        return false;
    }
    let size = vec2<f32>(f32(view.pyramid.x), f32(view.pyramid.y));
    let clip_from_world = view.clip_from_world;
    var lo = vec2<f32>(1.0);
    var hi = vec2<f32>(0.0);
    var near = 1.0;
    for (var k = 0u; k < 8u; k++) {
        let side = vec3<f32>(
            select(-1.0, 1.0, (k & 1u) != 0u),
            select(-1.0, 1.0, (k & 2u) != 0u),
            select(-1.0, 1.0, (k & 4u) != 0u),
        );
        let m = vec4<f32>(b.centre + b.half * side, 1.0);
        let world = vec4<f32>(dot(t.row0, m), dot(t.row1, m), dot(t.row2, m), 1.0);
        let p = clip_from_world * world;
        if p.w <= 1.0e-6 {
            return false;
        }
        let ndc = p.xyz / p.w;
        let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
        lo = min(lo, uv);
        hi = max(hi, uv);
        near = min(near, select(ndc.z, 1.0 - ndc.z, (view.flags & CULL_DEPTH_REVERSED) != 0u));
    }
    if near <= 0.0 {
        return false;
    }
    let last = view.pyramid.xy - vec2<u32>(1u);
    let a = min(vec2<u32>(max(floor(lo * size) - 1.0, vec2<f32>(0.0))), last);
    let c = min(vec2<u32>(max(floor(hi * size) + 1.0, vec2<f32>(0.0))), last);
    var level = 0u;
    loop {
        let span = (c >> vec2<u32>(level)) - (a >> vec2<u32>(level));
        if (span.x <= 1u && span.y <= 1u) || level + 1u >= levels {
            break;
        }
        level += 1u;
    }
    let a1 = a >> vec2<u32>(level);
    let c1 = c >> vec2<u32>(level);
    let far = max(
        max(pyramid_at(a1, level), pyramid_at(vec2<u32>(c1.x, a1.y), level)),
        max(pyramid_at(vec2<u32>(a1.x, c1.y), level), pyramid_at(c1, level)),
    );
    // Never against the cleared far depth, where nothing was drawn (a box
    // reaching past the far plane is the frustum's to cull).
    return far < 1.0 && near > far;
}

// Look classes of a model, class 0 included.
fn look_classes(model: GpuModelInfo) -> u32 {
    return 1u + min(model.look_classes, MAX_LOOK_CLASSES);
}

// The look class of an instance with hidden mask `hidden`: 1 + the mask's
// place among its model's, or 0 where it has none. The twin of
// throng_core::gpu::GpuModelInfo::class_of.
fn look_class(model: GpuModelInfo, hidden: u32) -> u32 {
    var masks = model.hidden_masks;
    for (var c = 0u; c < look_classes(model) - 1u; c++) {
        if masks[c] == hidden {
            return c + 1u;
        }
    }
    return 0u;
}

// The draw group of level `lod`, fading or not, look class `look`. The
// twin of throng_core::gpu::GpuModelInfo::group.
fn draw_group(model: GpuModelInfo, lod: u32, fading: bool, look: u32) -> u32 {
    return model.group_base + (2u * lod + u32(fading)) * look_classes(model) + look;
}

@compute @workgroup_size(WORKGROUP)
fn classify(inv: Invocation) {
    let i = instance_index(inv);
    if i == NOT_DRAWN {
        return;
    }
    let inst = instances[i];
    let model = model_of(inst);
    let s = shown(inst, model);
    let fading = s.fade < 1.0;
    let sphere = world_sphere(inst, transforms[i], model, fading);
    let early = (view.flags & CULL_EARLY) != 0u;
    let late = (view.flags & CULL_LATE) != 0u;
    let state = lod_state[i];
    placement[i] = vec4<u32>(NOT_DRAWN, 0u, NOT_DRAWN, 0u);
    // No size (zero scale, a hidden agent's zero transform): no pixel to
    // draw in any view. Mirrors throng_crowd's DrawPass::culled.
    if sphere.w <= 0.0 {
        if late {
            lod_state[i] = state & ~VISIBLE_BIT;
        }
        return;
    }
    if (view.flags & CULL_FRUSTUM) != 0u {
        let c = vec4<f32>(sphere.xyz, 1.0);
        let p = view.planes;
        let d = min(min(min(dot(p[0], c), dot(p[1], c)), min(dot(p[2], c), dot(p[3], c))), min(dot(p[4], c), dot(p[5], c)));
        if d < -sphere.w {
            // Out of view: not visible, for next frame's early phase.
            if late {
                lod_state[i] = state & ~VISIBLE_BIT;
            }
            return;
        }
    }
    // Instances with animation layers are drawn from the CPU's lists, with
    // the palette pre-pass; they count for the light's fit, nothing more.
    if (inst.model & INSTANCE_LAYERED) != 0u {
        if !late {
            add_drawn(sphere);
        }
        return;
    }
    // The light is fitted to everything in view, occluded or not, so that
    // the shadows do not depend on occlusion: the early (or only) phase
    // counts it.
    if !late {
        add_drawn(sphere);
    }
    var visible = state & VISIBLE_BIT;
    if early && visible == 0u {
        return;
    }
    if late {
        let hidden = occluded(local_box(inst, model, fading), transforms[i]);
        let was = visible;
        visible = select(VISIBLE_BIT, 0u, hidden);
        lod_state[i] = (state & ~VISIBLE_BIT) | visible;
        // Drawn by the early phase already (its bit is now next frame's).
        if was != 0u {
            return;
        }
        if hidden {
            atomicAdd(&counts[OCCLUDED_WORD], 1u);
            return;
        }
    }
    var lod = 0u;
    var level = 0u;
    if model.lod_count > 1u && (view.flags & CULL_LOD) != 0u && view.lod_scale > 0.0 {
        let dist = max(max(length(sphere.xyz - view.eye.xyz), sphere.w), 1.17549435e-38);
        let size = sphere.w * view.lod_scale / dist;
        lod = select_lod(model, size, state & ~VISIBLE_BIT);
        lod_state[i] = lod | visible;
        // Within the band around the switch to the impostor, both.
        if model.impostor_lod != NO_IMPOSTOR && lod >= model.impostor_mesh_lod {
            level = impostor_fade_level(size, model.impostor_size);
            if level >= LOD_DITHER_LEVELS {
                level = 0u;
            }
        }
    }
    var second = vec2<u32>(NOT_DRAWN, 0u);
    if level > 0u {
        let imp = min(draw_group(model, model.impostor_lod, fading, 0u), view.group_count - 1u);
        second = vec2<u32>(imp | (level << LEVEL_SHIFT), atomicAdd(&counts[DRAWN_WORDS + imp], 1u));
        lod = model.impostor_mesh_lod;
    }
    // The impostor shows every submesh: its groups are class 0's.
    var look = 0u;
    if model.impostor_lod == NO_IMPOSTOR || lod != model.impostor_lod {
        look = look_class(model, inst.look_hidden);
    }
    let group = min(draw_group(model, lod, fading, look), view.group_count - 1u);
    let slot = atomicAdd(&counts[DRAWN_WORDS + group], 1u);
    atomicAdd(&counts[PLACED_WORD], 1u);
    placement[i] = vec4<u32>(group | (level << LEVEL_SHIFT), slot, second);
}

@compute @workgroup_size(1)
fn offsets() {
    var first = 0u;
    for (var g = 0u; g < view.group_count; g++) {
        group_first[g] = first;
        first += atomicLoad(&counts[DRAWN_WORDS + g]);
    }
    // Each draw's instances are records it reads as instance-rate vertex
    // attributes: kept inside the records buffer. Only where the device
    // held fewer records than the impostor's cross-fade band asked for
    // (crate::cull) does this shorten a draw, by the records the scatter
    // dropped.
    let capacity = arrayLength(&records);
    for (var d = 0u; d < view.draw_count; d++) {
        let spec = draws[d];
        let g = min(spec.group, view.group_count - 1u);
        let at = min(group_first[g], capacity);
        let count = min(atomicLoad(&counts[DRAWN_WORDS + g]), capacity - at);
        indirect[d] = DrawIndexedArgs(spec.index_count, count, spec.first_index, spec.base_vertex, at);
    }
}

fn lod_tint(lod: u32) -> u32 {
    switch lod {
        case 0u: { return LOD_TINT_0; }
        case 1u: { return LOD_TINT_1; }
        case 2u: { return LOD_TINT_2; }
        default: { return LOD_TINT_3; }
    }
}

// An instance as classify placed it: its index, its placement (group
// word, slot; a second pair, NOT_DRAWN unless it fades between levels),
// the instance and its model.
struct Placed {
    index: u32,
    place: vec4<u32>,
    inst: GpuInstance,
    model: GpuModelInfo,
}

// The instance of this invocation as classify placed it; place.x is
// NOT_DRAWN (and nothing else read) where there is none or it is not
// drawn.
fn placed(inv: Invocation) -> Placed {
    var p: Placed;
    p.index = instance_index(inv);
    p.place = vec4<u32>(NOT_DRAWN, 0u, NOT_DRAWN, 0u);
    if p.index != NOT_DRAWN {
        p.place = placement[p.index];
    }
    if p.place.x != NOT_DRAWN {
        p.inst = instances[p.index];
        p.model = model_of(p.inst);
    }
    return p;
}

@compute @workgroup_size(WORKGROUP)
fn scatter(inv: Invocation) {
    let p = placed(inv);
    if p.place.x == NOT_DRAWN {
        return;
    }
    let s = shown(p.inst, p.model);
    let t = transforms[p.index];
    write_record(p.place.xy, p.inst, p.model, s, t);
    if p.place.z != NOT_DRAWN {
        write_record(p.place.zw, p.inst, p.model, s, t);
    }
}

// The draw group of a placement (group word, slot).
fn placed_group(place: vec2<u32>) -> u32 {
    return place.x & ((1u << LEVEL_SHIFT) - 1u);
}

// The index of a placement's record in `records` (and `previous_records`).
fn placed_at(place: vec2<u32>) -> u32 {
    return group_first[min(placed_group(place), view.group_count - 1u)] + place.y;
}

// The record of one placement (group word, slot).
fn write_record(place: vec2<u32>, inst: GpuInstance, model: GpuModelInfo, s: Shown, t: GpuTransform) {
    let level = place.x >> LEVEL_SHIFT;
    var tint = inst.tint;
    if (view.flags & CULL_LOD_TINTS) != 0u {
        tint = lod_tint((placed_group(place) - model.group_base) / (2u * look_classes(model)));
    }
    let at = placed_at(place);
    if at < arrayLength(&records) {
        records[at] = InstanceRecord(
            t.row0, t.row1, t.row2,
            s.current.frame0, s.current.frame1, s.current.t,
            s.previous.frame0, s.previous.frame1, s.previous.t,
            s.fade + 2.0 * f32(level), tint,
            vec2<u32>(inst.look_variant, inst.look_hidden), vec2<u32>(0u),
        );
    }
}

// Per placed instance, with CULL_PREVIOUS: where it was one frame before,
// written beside each of its records — its transform of that frame and
// its current clip's frames at the clock of that frame (`view.previous`).
@compute @workgroup_size(WORKGROUP)
fn previous(inv: Invocation) {
    if (view.flags & CULL_PREVIOUS) == 0u {
        return;
    }
    let p = placed(inv);
    if p.place.x == NOT_DRAWN {
        return;
    }
    var t = transforms[p.index];
    if p.index < arrayLength(&previous_transforms) {
        let before = previous_transforms[p.index];
        let zero = vec4<f32>(0.0);
        if any(before.row0 != zero) || any(before.row1 != zero) || any(before.row2 != zero) {
            t = before;
        }
    }
    var pose = FramePair(REST_FRAME, REST_FRAME, 0.0);
    if has_clip(p.inst.current) {
        let since = ticks_since_anchor(p.inst, view.previous.xy);
        pose = track_frames(p.model, p.inst.current, since);
    }
    let record = PreviousRecord(t.row0, t.row1, t.row2, pose.frame0, pose.frame1, pose.t, 0u);
    write_previous(p.place.xy, record);
    if p.place.z != NOT_DRAWN {
        write_previous(p.place.zw, record);
    }
}

// The previous record of one placement (group word, slot), at its
// record's index.
fn write_previous(place: vec2<u32>, record: PreviousRecord) {
    let at = placed_at(place);
    if at < arrayLength(&previous_records) {
        previous_records[at] = record;
    }
}
