// Bind-pose vertices read as raw words for compute passes (the skinning
// readback, the pose cache's fill): the vertex buffer of one LOD bound as
// storage, one throng_core::model::BakedVertex every VERTEX_WORDS u32. The
// prelude gives each field's first word (VERTEX_POSITION_WORD, ...),
// generated from the Rust layout. Joints are two u16 per word,
// little-endian.

// #import prelude
// #import skinning

@group(0) @binding(0) var<storage, read> vertex_words: array<u32>;

fn word_f32(i: u32) -> f32 {
    return bitcast<f32>(vertex_words[i]);
}

// The bind-pose vertex at `index` of the bound vertex buffer, clamped to
// its last whole vertex: the callers' indices are in range by their
// dispatch (docs/design/gpu-bounds.md), and a wrong one reads
// some vertex of this buffer, never past it.
fn read_vertex(index: u32) -> SkinInput {
    let last = max(arrayLength(&vertex_words) / VERTEX_WORDS, 1u) - 1u;
    let base = min(index, last) * VERTEX_WORDS;
    let p = base + VERTEX_POSITION_WORD;
    let n = base + VERTEX_NORMAL_WORD;
    let w = base + VERTEX_WEIGHTS_WORD;
    let j01 = vertex_words[base + VERTEX_JOINTS_WORD];
    let j23 = vertex_words[base + VERTEX_JOINTS_WORD + 1u];
    let m = base + VERTEX_MORPH_WORD;
    let t = base + VERTEX_TANGENT_WORD;
    return SkinInput(
        vec3<f32>(word_f32(p), word_f32(p + 1u), word_f32(p + 2u)),
        vec3<f32>(word_f32(n), word_f32(n + 1u), word_f32(n + 2u)),
        vec4<u32>(j01 & 0xffffu, j01 >> 16u, j23 & 0xffffu, j23 >> 16u),
        vec4<f32>(word_f32(w), word_f32(w + 1u), word_f32(w + 2u), word_f32(w + 3u)),
        vec2<u32>(vertex_words[m], vertex_words[m + 1u]),
        vec4<f32>(unpack2x16snorm(vertex_words[t]), unpack2x16snorm(vertex_words[t + 1u])),
    );
}
