// The GPU-driven path's light fit: the directional light's orthographic
// view, fitted to the box of what the camera's cull passes drew, computed
// where that box is (on the GPU) so that no frame waits for it on the CPU.
// Mirrors throng_render::shadow::Shadow::fit_light and
// throng_crowd::camera::Camera::directional_light operation for operation
// (same margins and reach, same look-at and orthographic matrices, the
// same Gribb–Hartmann planes). One invocation.

// #import prelude

// Mirrors throng_core::gpu::LightFitParams.
struct LightFitParams {
    toward_light: vec4<f32>,
    crowd_count: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// Mirrors throng_core::gpu::LightFit.
struct LightFit {
    planes: array<vec4<f32>, 6>,
    light_clip_from_world: mat4x4<f32>,
    visible: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> params: LightFitParams;
// DRAWN_WORDS words per crowd: the box and count of what its camera cull has in view.
@group(0) @binding(1) var<storage, read> receivers: array<u32>;
@group(0) @binding(2) var<storage, read_write> fit: LightFit;

// Inverse of cull.wgsl's `ordered`.
fn unordered(u: u32) -> f32 {
    return bitcast<f32>(select(~u, u & 0x7fffffffu, (u & 0x80000000u) != 0u));
}

// glam's normalize: v times the reciprocal of its length.
fn normalized(v: vec3<f32>) -> vec3<f32> {
    return v * (1.0 / length(v));
}

@compute @workgroup_size(1)
fn fit_light() {
    // The largest finite f32 stands for infinity: browsers' WGSL compilers
    // (Tint) refuse a constant expression whose value is infinite.
    let inf = 0x1.fffffep+127f;
    var lo = vec3<f32>(inf);
    var hi = vec3<f32>(-inf);
    var visible = 0u;
    for (var k = 0u; k < params.crowd_count; k++) {
        let h = k * DRAWN_WORDS;
        if h + IN_VIEW_WORD >= arrayLength(&receivers) {
            break;
        }
        let n = receivers[h + IN_VIEW_WORD];
        if n == 0u {
            continue;
        }
        visible += n;
        lo = min(lo, vec3<f32>(unordered(receivers[h]), unordered(receivers[h + 1u]), unordered(receivers[h + 2u])));
        hi = max(hi, vec3<f32>(unordered(receivers[h + 3u]), unordered(receivers[h + 4u]), unordered(receivers[h + 5u])));
    }
    fit.visible = visible;
    if visible == 0u {
        // Nothing in view: no light, and nothing passes the light's cull.
        for (var i = 0u; i < 6u; i++) {
            fit.planes[i] = vec4<f32>(0.0, 0.0, 0.0, -3.0e38);
        }
        fit.light_clip_from_world = mat4x4<f32>(
            vec4<f32>(1.0, 0.0, 0.0, 0.0), vec4<f32>(0.0, 1.0, 0.0, 0.0),
            vec4<f32>(0.0, 0.0, 1.0, 0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0));
        return;
    }

    // Shadow::fit_light: margin and reach from the receivers' radius.
    let box_radius = length(hi - lo) * 0.5;
    let margin = box_radius * 0.02;
    let reach = box_radius * 4.0;

    // Camera::directional_light.
    var dir = vec3<f32>(0.0, 1.0, 0.0);
    let len = length(params.toward_light.xyz);
    if len > 0.0 && len < inf {
        dir = params.toward_light.xyz * (1.0 / len);
    }
    let center = (lo + hi) * 0.5;
    let radius = max(box_radius, 1e-3);
    let distance = radius + max(reach, 0.0);
    var up = vec3<f32>(0.0, 1.0, 0.0);
    if dot(abs(dir), vec3<f32>(0.0, 1.0, 0.0)) > 0.99 {
        up = vec3<f32>(0.0, 0.0, 1.0);
    }
    let eye = center + dir * distance;
    // glam's right-handed look_at.
    let f = normalized(center - eye);
    let s = normalized(cross(f, up));
    let u = cross(s, f);
    let view = mat4x4<f32>(
        vec4<f32>(s.x, u.x, -f.x, 0.0),
        vec4<f32>(s.y, u.y, -f.y, 0.0),
        vec4<f32>(s.z, u.z, -f.z, 0.0),
        vec4<f32>(-dot(eye, s), -dot(eye, u), dot(eye, f), 1.0));
    // The receivers' corners in light space give the ortho box.
    var vlo = vec3<f32>(inf);
    var vhi = vec3<f32>(-inf);
    for (var i = 0u; i < 8u; i++) {
        let c = select(lo, hi, vec3<bool>((i & 1u) != 0u, (i & 2u) != 0u, (i & 4u) != 0u));
        let p = (view * vec4<f32>(c, 1.0)).xyz;
        vlo = min(vlo, p);
        vhi = max(vhi, p);
    }
    let far = -vlo.z + radius * 0.01;
    // glam's right-handed orthographic, depth in [0, 1], near 0.
    let left = vlo.x - margin;
    let right = vhi.x + margin;
    let bottom = vlo.y - margin;
    let top = vhi.y + margin;
    let width_inv = 1.0 / (right - left);
    let height_inv = 1.0 / (top - bottom);
    let depth_inv = 1.0 / far;
    let proj = mat4x4<f32>(
        vec4<f32>(width_inv + width_inv, 0.0, 0.0, 0.0),
        vec4<f32>(0.0, height_inv + height_inv, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, -depth_inv, 0.0),
        vec4<f32>(-(left + right) * width_inv, -(top + bottom) * height_inv, 0.0, 1.0));
    let m = proj * view;
    fit.light_clip_from_world = m;

    // Frustum::from_clip_from_world (Gribb–Hartmann, depth in [0, 1]).
    let t = transpose(m);
    let planes = array<vec4<f32>, 6>(t[3] + t[0], t[3] - t[0], t[3] + t[1], t[3] - t[1], t[2], t[3] - t[2]);
    for (var i = 0u; i < 6u; i++) {
        let p = planes[i];
        let l = length(p.xyz);
        fit.planes[i] = select(p, p / l, l > 0.0);
    }
}
