// The light's shadow parameters, for both the shadow pass (casting) and the
// crowd pass (receiving): group 3 binding 2, clear of the records at binding 0
// (and of binding 1, used by the CPU-skinned baseline).

// #import shadow_filter

@group(3) @binding(2) var<uniform> shadow: ShadowUniforms;
