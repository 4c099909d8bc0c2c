// Where each level of a depth pyramid lies in its atlas (docs/design/
// occlusion.md): level 0 (the largest power of two at most the depth
// buffer's size) at the origin, every further level in a column to its
// right, one under the other. Mirrors throng_render::passes::depth_pyramid's
// `level_origin` and `level_size`. The levels alternate between two atlases
// of this layout, even levels in one and odd in the other, each a texture
// of one mip level: a level is written while the one before is read from
// the other atlas, and no view of a few mip levels is ever made. (A
// pyramid in the mip levels of one texture, written level by level through
// one-level views, was read wrong on wgpu's GL backend — visible Foxes
// culled on llvmpipe GL, and right with a single level — and right with
// these atlases.)

// The size of `level` of a pyramid whose level 0 is `size0`.
fn level_size(size0: vec2<u32>, level: u32) -> vec2<u32> {
    return max(size0 >> vec2<u32>(level), vec2<u32>(1u));
}

// The texel of the atlas where `level` begins.
fn level_origin(size0: vec2<u32>, level: u32) -> vec2<u32> {
    if level == 0u {
        return vec2<u32>(0u);
    }
    var y = 0u;
    for (var j = 1u; j < level; j++) {
        y += max(size0.y >> j, 1u);
    }
    return vec2<u32>(size0.x, y);
}
