// Analytic playback on the GPU. Mirrors throng_core::clock exactly:
// time is a 64-bit tick count (two u32 words, lo in x), a track's unwrapped
// phase is U = phase * 2^32 + rate * (now - anchor) in 2^-64 periods,
// computed here in 32-bit limbs (the CPU uses i128), and the clip time is
// taken from U's top 32 fraction bits, as on the CPU.

// #import prelude

// One clip track. Mirrors throng_core::gpu::GpuTrack.
struct GpuTrack {
    phase_lo: u32,
    phase_hi: u32,
    rate_lo: u32,
    rate_hi: u32,
    // Clip index in the low 16 bits (NO_CLIP: none), wrap code in the high 16.
    clip: u32,
}

// a - b on 64-bit words.
fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let borrow = select(0u, 1u, a.x < b.x);
    return vec2<u32>(a.x - b.x, a.y - b.y - borrow);
}

// The 64-bit product of two u32, as (lo, hi).
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

// a + b + carry_in on one limb, as (sum, carry out).
fn add_carry(a: u32, b: u32, carry_in: u32) -> vec2<u32> {
    let s = a + b;
    let c0 = select(0u, 1u, s < a);
    let t = s + carry_in;
    let c1 = select(0u, 1u, t < s);
    return vec2<u32>(t, c0 + c1);
}

// U = phase * 2^32 + rate * ticks as four limbs (two's complement, limb 0
// lowest).
fn unwrapped_phase(track: GpuTrack, ticks: vec2<u32>) -> vec4<u32> {
    let negative = (track.rate_hi & 0x80000000u) != 0u;
    // |rate| as two limbs.
    var m0 = track.rate_lo;
    var m1 = track.rate_hi;
    if negative {
        m0 = ~m0 + 1u;
        m1 = ~m1 + select(0u, 1u, m0 == 0u);
    }
    let p00 = mul_wide(m0, ticks.x);
    let p01 = mul_wide(m0, ticks.y);
    let p10 = mul_wide(m1, ticks.x);
    let p11 = mul_wide(m1, ticks.y);
    // Sum the partial products limb by limb.
    let l0 = p00.x;
    let a1 = add_carry(p00.y, p01.x, 0u);
    let b1 = add_carry(a1.x, p10.x, 0u);
    let c1 = a1.y + b1.y;
    let a2 = add_carry(p01.y, p10.y, c1);
    let b2 = add_carry(a2.x, p11.x, 0u);
    let c2 = a2.y + b2.y;
    let l3 = p11.y + c2;
    var u = vec4<u32>(l0, b1.x, b2.x, l3);
    if negative {
        // Two's complement over 128 bits.
        let n0 = add_carry(~u.x, 1u, 0u);
        let n1 = add_carry(~u.y, 0u, n0.y);
        let n2 = add_carry(~u.z, 0u, n1.y);
        u = vec4<u32>(n0.x, n1.x, n2.x, ~u.w + n2.y);
    }
    // + phase * 2^32 (phase is unsigned: limbs 1 and 2).
    let s1 = add_carry(u.y, track.phase_lo, 0u);
    let s2 = add_carry(u.z, track.phase_hi, s1.y);
    return vec4<u32>(u.x, s1.x, s2.x, u.w + s2.y);
}

// Clip time in [0, duration] of `track`, `ticks` after its anchor.
// Mirrors throng_core::clock::Track::clip_time.
fn track_time(track: GpuTrack, ticks: vec2<u32>, duration: f32) -> f32 {
    return time_of(unwrapped_phase(track, ticks), duration, track.clip >> 16u);
}

// Clip time in [0, duration] at the unwrapped phase u (four limbs) with
// wrap code `wrap`. Mirrors throng_core::clock::time_of.
fn time_of(u: vec4<u32>, duration: f32, wrap: u32) -> f32 {
    let f = f32(u.y) * (1.0 / 4294967296.0);
    if wrap == WRAP_PING_PONG {
        let x = 2.0 * f;
        return select(2.0 - x, x, x <= 1.0) * duration;
    }
    if wrap == WRAP_ONCE {
        if (u.w & 0x80000000u) != 0u {
            return 0.0;
        }
        if u.z != 0u || u.w != 0u {
            return duration;
        }
    }
    return f * duration;
}

// Seconds in a tick count, as the CPU's `ticks as f32 / TICKS_PER_SECOND`
// (saturating past 2^32 ticks, where only "long ago" matters).
fn ticks_to_seconds(ticks: vec2<u32>) -> f32 {
    if ticks.y != 0u {
        return 3.4e38;
    }
    return f32(ticks.x) * (1.0 / f32(TICKS_PER_SECOND));
}
