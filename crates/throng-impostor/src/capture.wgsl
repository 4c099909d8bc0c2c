// The impostor capture's fragment stage, composed with Throng's draw
// program (its skinning vertex stage and material bindings). The capture
// camera looks down -Z with no rotation, so the world normal here is the
// normal in the captured view's basis. One pass writes every image.

// #import draw
// #import octahedral

struct CaptureOut {
    // Unlit colour with coverage: base colour × texture × tint.
    @location(0) colour: vec4<f32>,
    // The view-space normal (normal-mapped, as the mesh is shaded),
    // octahedral in RG, and the ambient occlusion in B (1 unoccluded: the
    // occlusion map by its strength); A is coverage.
    @location(1) normal: vec4<f32>,
}

// With the surface image (throng_core::impostor::ImpostorAtlas::surface).
struct SurfaceOut {
    @location(0) colour: vec4<f32>,
    @location(1) normal: vec4<f32>,
    // Metalness, roughness, glow (the emissive texel's largest channel)
    // and the material's code (throng_core::impostor::surface_id_code).
    @location(2) surface: vec4<f32>,
}

// What both entry points capture of a fragment: its unlit colour and its
// decoded material (the normal-mapped normal, occlusion, metalness, …).
struct Captured {
    colour: vec4<f32>,
    s: Surface,
}

// The fragment's colour and material, or discarded where the alpha mask
// cuts it (on the base colour before the tint, as the crowd's own shading
// applies it; only the colour image carries the tint).
fn captured(in: VertexOut, front_facing: bool) -> Captured {
    let base = material.base_color * base_texel(in.uv);
    if (material.alpha_mode == ALPHA_MASK && base.a < material.alpha_cutoff) {
        discard;
    }
    let n = normalize(in.world_normal) * select(-1.0, 1.0, front_facing);
    let t = in.world_tangent * vec4<f32>(1.0, 1.0, 1.0, select(-1.0, 1.0, front_facing));
    let s = material_surface_tangent(in.uv, in.world_position, n, t, in.tint);
    return Captured(vec4<f32>((base * in.tint).rgb, 1.0), s);
}

// The normal image's texel: the normal octahedral, the occlusion, full
// coverage.
fn normal_texel(s: Surface) -> vec4<f32> {
    return vec4<f32>(oct_encode(s.normal) * 0.5 + 0.5, s.occlusion, 1.0);
}

@fragment
fn fs_capture(in: VertexOut, @builtin(front_facing) front_facing: bool) -> CaptureOut {
    let c = captured(in, front_facing);
    return CaptureOut(c.colour, normal_texel(c.s));
}

// fs_capture with the surface image. SURFACE_MATERIALS, the model's
// material count, is appended to this source by capture.rs.
@fragment
fn fs_capture_surface(in: VertexOut, @builtin(front_facing) front_facing: bool) -> SurfaceOut {
    let c = captured(in, front_facing);
    let glow = textureSample(emissive_texture, emissive_sampler, slot_uv(SLOT_EMISSIVE, in.uv)).rgb;
    let last = max(SURFACE_MATERIALS, 1u) - 1u;
    let code = select(f32(min(material.palette_column, last)) / f32(last), 0.0, last == 0u);
    let surface = vec4<f32>(c.s.metallic, c.s.roughness, max(max(glow.r, glow.g), glow.b), code);
    return SurfaceOut(c.colour, normal_texel(c.s), surface);
}
