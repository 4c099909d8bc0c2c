// The ground a crowd's moving instances stand on: its words (a header,
// the heightfield's heights, the pieces) at binding GROUND_BINDING (14) of
// group 0 in every pass that imports this module (the motion pass and the
// simulation's passes), and the height, slope and placement on it.
// Mirrors throng_core::ground operation for operation.

// #import gpu_instance
// #import prelude

// Mirrors throng_core::ground::GpuGroundHeader.
struct GroundHeader {
    columns: u32,
    rows: u32,
    pieces: u32,
    flags: u32,
    origin_x: f32,
    origin_z: f32,
    spacing: f32,
    pad: u32,
}

// Mirrors throng_core::ground::GpuGroundPiece.
// A piece's fields are read as words: min at word 0, the others at the
// prelude's GROUND_PIECE_*_WORD.
struct GroundPiece {
    min: vec2<f32>,
    max: vec2<f32>,
    slope: vec2<f32>,
    height: f32,
    pad: u32,
}

@group(0) @binding(14) var<storage, read> ground_words: array<u32>;

// Word i of the ground, 0 past its end.
fn ground_word(i: u32) -> u32 {
    if i >= arrayLength(&ground_words) {
        return 0u;
    }
    return ground_words[i];
}

fn ground_f32(i: u32) -> f32 {
    return bitcast<f32>(ground_word(i));
}

// The header's words, in GroundHeader's order (the layout test holds it
// to GpuGroundHeader's).
fn ground_header() -> GroundHeader {
    return GroundHeader(
        ground_word(0u), ground_word(1u), ground_word(2u), ground_word(3u),
        ground_f32(4u), ground_f32(5u), ground_f32(6u), 0u,
    );
}

// The ground's height (x) and gradient (yz) at world (x, z) p.
fn ground_sample(g: GroundHeader, p: vec2<f32>) -> vec3<f32> {
    var best = vec3<f32>(0.0);
    if g.columns >= 2u && g.rows >= 2u && g.spacing > 0.0 {
        let last = vec2<f32>(f32(g.columns) - 1.0, f32(g.rows) - 1.0);
        let gp = (p - vec2<f32>(g.origin_x, g.origin_z)) / g.spacing;
        let c = clamp(gp, vec2<f32>(0.0), last);
        let i = min(u32(floor(c.x)), g.columns - 2u);
        let j = min(u32(floor(c.y)), g.rows - 2u);
        let f = c - vec2<f32>(f32(i), f32(j));
        let base = GROUND_HEADER_WORDS + j * g.columns + i;
        let h00 = ground_f32(base);
        let h10 = ground_f32(base + 1u);
        let h01 = ground_f32(base + g.columns);
        let h11 = ground_f32(base + g.columns + 1u);
        let near = h00 + (h10 - h00) * f.x;
        let far = h01 + (h11 - h01) * f.x;
        let height = near + (far - near) * f.y;
        let dx = ((h10 - h00) + ((h11 - h01) - (h10 - h00)) * f.y) / g.spacing;
        let dz = (far - near) / g.spacing;
        let in_x = select(0.0, 1.0, gp.x >= 0.0 && gp.x <= last.x);
        let in_z = select(0.0, 1.0, gp.y >= 0.0 && gp.y <= last.y);
        best = vec3<f32>(height, dx * in_x, dz * in_z);
    }
    let first = GROUND_HEADER_WORDS + g.columns * g.rows;
    for (var k = 0u; k < g.pieces; k++) {
        let w = first + k * GROUND_PIECE_WORDS;
        let lo = vec2<f32>(ground_f32(w), ground_f32(w + 1u));
        let hi = vec2<f32>(ground_f32(w + GROUND_PIECE_MAX_WORD), ground_f32(w + GROUND_PIECE_MAX_WORD + 1u));
        if p.x >= lo.x && p.y >= lo.y && p.x < hi.x && p.y < hi.y {
            let slope = vec2<f32>(ground_f32(w + GROUND_PIECE_SLOPE_WORD), ground_f32(w + GROUND_PIECE_SLOPE_WORD + 1u));
            let d = p - lo;
            let h = ground_f32(w + GROUND_PIECE_HEIGHT_WORD) + (slope.x * d.x + slope.y * d.y);
            if h > best.x {
                best = vec3<f32>(h, slope);
            }
        }
    }
    return best;
}

// t placed on the ground (unchanged without one): its height the
// ground's, and with GROUND_SLOPE its up the ground's normal and its
// forward the slope's tangent along its heading, each axis keeping its
// scale. Mirrors throng_core::ground::Ground::place.
fn ground_place(t: GpuTransform) -> GpuTransform {
    let g = ground_header();
    if (g.flags & GROUND_PRESENT) == 0u {
        return t;
    }
    let s = ground_sample(g, vec2<f32>(t.row0.w, t.row2.w));
    var out = t;
    out.row1.w = s.x;
    let col0 = vec3<f32>(t.row0.x, t.row1.x, t.row2.x);
    let col1 = vec3<f32>(t.row0.y, t.row1.y, t.row2.y);
    let z = vec3<f32>(t.row0.z, t.row1.z, t.row2.z);
    let heading = vec2<f32>(z.x, z.z);
    if (g.flags & GROUND_SLOPE) == 0u || dot(heading, heading) < 1e-12 {
        return out;
    }
    let h = normalize(heading);
    let gradient = s.yz;
    let f = normalize(vec3<f32>(h.x, dot(gradient, h), h.y));
    let n = normalize(vec3<f32>(-gradient.x, 1.0, -gradient.y));
    let x = cross(n, f) * length(col0);
    let y = n * length(col1);
    let zz = f * length(z);
    out.row0 = vec4<f32>(x.x, y.x, zz.x, t.row0.w);
    out.row1 = vec4<f32>(x.y, y.y, zz.y, s.x);
    out.row2 = vec4<f32>(x.z, y.z, zz.z, t.row2.w);
    return out;
}
