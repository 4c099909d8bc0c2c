//! The pose cache's layout and encoding, the CPU twin of
//! `throng-render/src/pose_cache/pose_cache.wgsl`: what one cached vertex holds, how many bytes
//! a (model, LOD) needs, and the octahedral normal code.
//!
//! The runtime (`throng_render::pose_cache`) skins every baked frame of a
//! LOD once into a storage buffer; the vertex stage then interpolates two
//! cached poses (four while cross-fading) instead of skinning with four
//! bones' interpolated matrices. Positions are linear in the matrices, so
//! this equals skinning up to float rounding; normals are not (see
//! docs/design/pose-cache.md).

use glam::{Vec2, Vec3};

/// Bytes of one cached vertex of one pose: the position's three `f32` and
/// the normal as two snorm16 octahedral coordinates (WGSL `vec4<u32>`).
pub const POSE_VERTEX_BYTES: u64 = 16;

/// Bytes of the cache of a LOD of `vertices` vertices over `frames` baked
/// frames (every frame of the model's global frame table), or `None` if
/// that overflows.
pub fn lod_bytes(vertices: u32, frames: u32) -> Option<u64> {
    (vertices as u64)
        .checked_mul(frames as u64)?
        .checked_mul(POSE_VERTEX_BYTES)
}

/// Octahedral coordinates in [-1, 1]² of unit vector `n` (a zero vector
/// maps to +z); WGSL `oct_encode` (`shaders/octahedral.wgsl`).
pub fn oct_encode(n: Vec3) -> Vec2 {
    let l1 = n.x.abs() + n.y.abs() + n.z.abs();
    let p = if l1 > 0.0 {
        Vec2::new(n.x, n.y) / l1
    } else {
        Vec2::ZERO
    };
    if n.z < 0.0 {
        let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
        Vec2::new((1.0 - p.y.abs()) * sign(p.x), (1.0 - p.x.abs()) * sign(p.y))
    } else {
        p
    }
}

/// The unit vector of octahedral coordinates `e`; WGSL `oct_decode`.
pub fn oct_decode(e: Vec2) -> Vec3 {
    let z = 1.0 - e.x.abs() - e.y.abs();
    let sign = |v: f32| if v >= 0.0 { 1.0 } else { -1.0 };
    let n = if z < 0.0 {
        Vec3::new(
            (1.0 - e.y.abs()) * sign(e.x),
            (1.0 - e.x.abs()) * sign(e.y),
            z,
        )
    } else {
        Vec3::new(e.x, e.y, z)
    };
    n.normalize()
}

/// WGSL `pack2x16snorm`.
fn pack_snorm16(v: Vec2) -> u32 {
    let q = |x: f32| ((x.clamp(-1.0, 1.0) * 32767.0).round() as i16) as u16 as u32;
    q(v.x) | (q(v.y) << 16)
}

/// WGSL `unpack2x16snorm`.
fn unpack_snorm16(w: u32) -> Vec2 {
    let d = |h: u32| ((h as u16 as i16) as f32 / 32767.0).max(-1.0);
    Vec2::new(d(w & 0xffff), d(w >> 16))
}

/// One cached vertex as the shader stores it: position bits and packed
/// normal.
pub fn encode_vertex(position: Vec3, normal: Vec3) -> [u32; 4] {
    [
        position.x.to_bits(),
        position.y.to_bits(),
        position.z.to_bits(),
        pack_snorm16(oct_encode(normal)),
    ]
}

/// The position and unit normal of one cached vertex.
pub fn decode_vertex(words: [u32; 4]) -> (Vec3, Vec3) {
    (
        Vec3::new(
            f32::from_bits(words[0]),
            f32::from_bits(words[1]),
            f32::from_bits(words[2]),
        ),
        oct_decode(unpack_snorm16(words[3])),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worst angle (radians; the chord, equal to it at this size) of a
    /// normal through the 2 × 16-bit code: the octahedral map stretches by
    /// at most ~2, so about 2 / 32767.
    const NORMAL_CODE_RADIANS: f32 = 1e-4;

    #[test]
    fn normals_survive_the_code_within_its_precision() {
        let mut worst = (0.0f32, Vec3::ZERO);
        let steps = 64;
        for i in 0..=steps {
            for j in 0..=2 * steps {
                let theta = std::f32::consts::PI * i as f32 / steps as f32;
                let phi = std::f32::consts::PI * j as f32 / steps as f32;
                let n = Vec3::new(
                    theta.sin() * phi.cos(),
                    theta.sin() * phi.sin(),
                    theta.cos(),
                );
                let (_, back) = decode_vertex(encode_vertex(Vec3::ZERO, n));
                // The chord, not acos of the dot product: f32's acos near 1
                // is off by ~5e-4 on its own.
                let angle = (n - back).length();
                if angle > worst.0 {
                    worst = (angle, n);
                }
            }
        }
        assert!(
            worst.0 <= NORMAL_CODE_RADIANS,
            "worst normal error {} rad at {:?}",
            worst.0,
            worst.1
        );
    }

    #[test]
    fn positions_are_stored_bit_for_bit() {
        let p = Vec3::new(-1.25e-3, 3.5, f32::MIN_POSITIVE);
        assert_eq!(decode_vertex(encode_vertex(p, Vec3::Y)).0, p);
    }

    #[test]
    fn a_zero_normal_decodes_to_plus_z() {
        assert_eq!(
            decode_vertex(encode_vertex(Vec3::ZERO, Vec3::ZERO)).1,
            Vec3::Z
        );
    }

    #[test]
    fn sizes_count_every_frame_and_refuse_overflow() {
        assert_eq!(lod_bytes(1728, 100), Some(1728 * 100 * 16));
        assert_eq!(lod_bytes(u32::MAX, u32::MAX), None);
    }
}
