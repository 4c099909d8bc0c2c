// The application's own fragment stage for Throng's crowd: toon shading in
// three bands, with the crowd's shadows and a rim light. The vertex stage is
// Throng's skinning (`vs_main` of `draw`); `draw` also brings `VertexOut`,
// the frame and material bindings, `base_texel` (the material's base
// colour texture, its UV transform applied) and `fog_apply` (the frame's distance
// fog, none unless the application sets one); `shadow_receive` the shadow
// map and `shadow_filter`.

// #import draw
// #import shadow_receive

@fragment
fn fs_toon(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let base = material.base_color * base_texel(in.uv) * in.tint;
    let n = normalize(in.world_normal) * select(-1.0, 1.0, front_facing);
    let lit = shadow_filter(shadow_map, shadow_sampler, shadow, in.world_position);
    let diffuse = max(dot(n, frame.light_dir.xyz), 0.0) * lit;
    let band = floor(diffuse * 3.0 + 0.5) / 3.0;
    let to_eye = normalize(frame.eye.xyz - in.world_position);
    let rim = pow(1.0 - max(dot(n, to_eye), 0.0), 4.0);
    let rgb = base.rgb * (frame.ambient.rgb + frame.light_color.rgb * band) + vec3(0.5 * rim);
    return vec4<f32>(fog_apply(frame.fog, rgb, frame.eye.xyz, in.world_position, frame.light_dir.xyz), 1.0);
}
