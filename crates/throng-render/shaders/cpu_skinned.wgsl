// Palette skinning: the per-character baseline of `throng bench --mode
// cpu-skinned`, the way three.js and Bevy animate characters.
//
// Every frame the CPU evaluates each character's joint palette
// (P_b = G_joint · IBM, stored as the top three rows of the 3x4 affine matrix,
// exactly like a bone-texture entry) and writes it behind a small header into
// one storage buffer; each character is one draw that binds its slice with a
// dynamic offset. Uses skinning.wgsl (Rows, Skinned, transform_point,
// transform_normal, world_from_model's row layout) and draw.wgsl (Frame,
// VertexIn, VertexOut and fs_main, which shades these vertices unchanged). Binding 1 of group 3 keeps clear of the records buffer
// that records_storage.wgsl declares at binding 0 of the same group; only
// vs_palette's bindings reach the pipeline layout.

// #import skinning
// #import draw

// Mirrors throng_render::uniforms::CharacterHeader.
struct CharacterHeader {
    world_from_model_row0: vec4<f32>,
    world_from_model_row1: vec4<f32>,
    world_from_model_row2: vec4<f32>,
    // Packed RGBA8 (unorm), as in InstanceRecord.
    tint: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// One character's slice of the frame's palette buffer.
struct Character {
    header: CharacterHeader,
    palette: array<Rows>,
}

@group(3) @binding(1) var<storage, read> character: Character;

// Palette entry `bone`, clamped so that a bad index never reads outside the
// character's slice.
fn palette_rows(bone: u32) -> Rows {
    return character.palette[min(bone, arrayLength(&character.palette) - 1u)];
}

// Blends the vertex's influences from the CPU-written palette.
fn palette_skin(v: VertexIn) -> Skinned {
    var m = Rows(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < MAX_INFLUENCES; k++) {
        let w = v.weights[k];
        if (w != 0.0) {
            let b = palette_rows(v.joints[k]);
            m.r0 += b.r0 * w;
            m.r1 += b.r1 * w;
            m.r2 += b.r2 * w;
        }
    }
    return Skinned(transform_point(m, v.position), transform_normal(m, v.normal), transform_tangent(m, v.tangent));
}

@vertex
fn vs_palette(v: VertexIn) -> VertexOut {
    let h = character.header;
    let s = palette_skin(v);
    let world = Rows(h.world_from_model_row0, h.world_from_model_row1, h.world_from_model_row2);
    return vertex_out(world, s, v.uv, h.tint);
}
