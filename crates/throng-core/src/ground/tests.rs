use glam::{Vec2, Vec3, Vec4};

use super::*;

fn plane(gx: f32, gz: f32) -> Heightfield {
    Heightfield::from_fn(Vec2::new(-4.0, -2.0), 0.5, 17, 9, |p| {
        1.0 + gx * p.x + gz * p.y
    })
    .unwrap()
}

#[test]
fn a_heightfield_is_its_samples_at_grid_points_and_bilinear_between() {
    let h = Heightfield::new(Vec2::new(1.0, 2.0), 2.0, 2, 2, vec![0.0, 1.0, 2.0, 5.0]).unwrap();
    assert_eq!(h.sample(Vec2::new(1.0, 2.0)).height, 0.0);
    assert_eq!(h.sample(Vec2::new(3.0, 2.0)).height, 1.0);
    assert_eq!(h.sample(Vec2::new(1.0, 4.0)).height, 2.0);
    assert_eq!(h.sample(Vec2::new(3.0, 4.0)).height, 5.0);
    assert_eq!(h.sample(Vec2::new(2.0, 3.0)).height, 2.0);
    // Outside: the nearest edge's height, flat across the edge.
    let out = h.sample(Vec2::new(10.0, 3.0));
    assert_eq!(out.height, 3.0);
    assert_eq!(out.gradient.x, 0.0);
}

#[test]
fn the_gradient_of_a_planar_heightfield_is_the_plane_s() {
    let h = plane(0.3, -0.2);
    for p in [
        Vec2::new(-3.9, -1.9),
        Vec2::new(0.1, 0.3),
        Vec2::new(3.7, 1.9),
    ] {
        let s = h.sample(p);
        assert!(
            (s.height - (1.0 + 0.3 * p.x - 0.2 * p.y)).abs() < 1e-5,
            "{p}: {s:?}"
        );
        assert!(
            (s.gradient - Vec2::new(0.3, -0.2)).abs().max_element() < 1e-4,
            "{p}: {s:?}"
        );
    }
    let steep =
        Heightfield::from_fn(Vec2::ZERO, 1.0, 3, 3, |p| p.x * 20f32.to_radians().tan()).unwrap();
    let angle = steep.sample(Vec2::splat(0.5)).slope_angle().to_degrees();
    assert!((angle - 20.0).abs() < 1e-3, "{angle}°");
}

#[test]
fn the_highest_piece_covering_a_point_wins() {
    let stairs = Piece::stairs_along_x(Vec2::new(0.0, 0.0), 0.0, 3, 1.0, 0.25, 2.0, 1.0);
    let ground = Ground::new(Some(plane(0.0, 0.0)), stairs).unwrap();
    // The heightfield is at 1: the first step (0.25) is under it.
    assert_eq!(ground.height_at(Vec2::new(0.5, 1.0)), 1.0);
    let low = Ground::new(
        None,
        Piece::stairs_along_x(Vec2::ZERO, 0.0, 3, 1.0, 0.25, 2.0, 1.0),
    )
    .unwrap();
    let heights: Vec<f32> = [-0.5, 0.5, 1.5, 2.5, 3.5, 4.5]
        .iter()
        .map(|&x| low.height_at(Vec2::new(x, 1.0)))
        .collect();
    assert_eq!(heights, [0.0, 0.25, 0.5, 0.75, 0.75, 0.0]);
    assert_eq!(low.height_at(Vec2::new(1.5, 2.5)), 0.0, "beside the stair");
    let ramp = Piece {
        min: Vec2::ZERO,
        max: Vec2::splat(4.0),
        height: 0.5,
        slope: Vec2::new(0.25, 0.0),
    };
    let s = Ground::new(None, vec![ramp])
        .unwrap()
        .sample(Vec2::new(2.0, 1.0));
    assert_eq!((s.height, s.gradient), (1.0, Vec2::new(0.25, 0.0)));
}

#[test]
fn bad_grounds_are_refused_naming_what_and_where() {
    let mut heights = vec![0.0; 12];
    heights[7] = f32::NAN;
    let e = Heightfield::new(Vec2::ZERO, 1.0, 4, 3, heights).unwrap_err();
    assert!(e.to_string().contains("sample (3, 1)"), "{e}");
    let e = Heightfield::new(Vec2::ZERO, 1.0, 1, 3, vec![0.0; 3]).unwrap_err();
    assert!(e.to_string().contains("1 × 3"), "{e}");
    let e = Heightfield::new(Vec2::ZERO, 0.0, 2, 2, vec![0.0; 4]).unwrap_err();
    assert!(e.to_string().contains("spacing 0"), "{e}");
    let e = Heightfield::new(Vec2::ZERO, 1.0, 2, 2, vec![0.0; 5]).unwrap_err();
    assert!(e.to_string().contains("5 heights"), "{e}");
    let e = Heightfield::from_fn(Vec2::ZERO, 1.0, MAX_GROUND_SIDE + 1, 2, |_| 0.0).unwrap_err();
    assert!(e.to_string().contains("4097"), "{e}");
    let empty = Piece::step(Vec2::ONE, Vec2::new(1.0, 3.0), 1.0);
    let e = Ground::new(None, vec![Piece::step(Vec2::ZERO, Vec2::ONE, 1.0), empty]).unwrap_err();
    assert_eq!(
        e,
        GroundError::Piece {
            index: 1,
            what: "rectangle [1, 1] to [1, 3] is empty".into()
        }
    );
    let e = Ground::new(None, vec![empty; MAX_GROUND_PIECES + 1]).unwrap_err();
    assert_eq!(e, GroundError::TooManyPieces(MAX_GROUND_PIECES + 1));
}

fn yawed(yaw: f32, at: Vec3) -> [Vec4; 3] {
    let (s, c) = yaw.sin_cos();
    [
        Vec4::new(c, 0.0, s, at.x),
        Vec4::new(0.0, 1.0, 0.0, at.y),
        Vec4::new(-s, 0.0, c, at.z),
    ]
}

#[test]
fn an_instance_is_placed_at_the_ground_s_height_upright_or_turned_to_its_normal() {
    let ground = Ground::new(Some(plane(0.3, -0.2)), vec![]).unwrap();
    let rows = yawed(0.7, Vec3::new(1.0, 9.0, 0.5));
    let up = ground.place(rows, GroundAlign::Upright);
    let h = 1.0 + 0.3 - 0.1;
    assert!((up[1].w - h).abs() < 1e-5);
    assert_eq!([up[0], up[2]], [rows[0], rows[2]]);
    assert_eq!(up[1].truncate(), rows[1].truncate());
    let tilted = ground.place(rows, GroundAlign::Slope);
    // Columns of the rotation: the instance's axes in the world.
    let axis = |k: usize| Vec3::new(tilted[0][k], tilted[1][k], tilted[2][k]);
    let n = Vec3::new(-0.3, 1.0, 0.2).normalize();
    assert!(
        (axis(1) - n).abs().max_element() < 1e-5,
        "up {} against {n}",
        axis(1)
    );
    for (a, b) in [(0, 1), (1, 2), (0, 2)] {
        assert!(
            axis(a).dot(axis(b)).abs() < 1e-5,
            "axes {a}, {b} stay orthogonal"
        );
    }
    assert!((axis(0).length() - 1.0).abs() < 1e-5 && (axis(2).length() - 1.0).abs() < 1e-5);
    // Forward keeps its heading exactly, tangent to the slope.
    let f = axis(2);
    assert!(f.dot(n).abs() < 1e-5, "forward is tangent to the ground");
    let heading = Vec2::new(rows[0].z, rows[2].z);
    assert!(
        Vec2::new(f.x, f.z).normalize().dot(heading) > 1.0 - 1e-6,
        "{f}"
    );
    assert!(axis(0).cross(axis(1)).dot(f) > 0.999, "right-handed");
    assert!((tilted[1].w - h).abs() < 1e-5);
    let again = ground.place(tilted, GroundAlign::Slope);
    for (a, b) in again.iter().zip(&tilted) {
        assert!(
            (*a - *b).abs().max_element() < 1e-6,
            "placing twice: {a} against {b}"
        );
    }
    // Scale is kept per axis.
    let scaled = rows.map(|r| r * Vec4::new(2.0, 2.0, 2.0, 1.0));
    let big = ground.place(scaled, GroundAlign::Slope);
    assert!((Vec3::new(big[0].y, big[1].y, big[2].y).length() - 2.0).abs() < 1e-5);
}

#[test]
fn the_words_hold_the_header_the_heights_and_the_pieces() {
    assert_eq!(
        std::mem::size_of::<GpuGroundHeader>(),
        GROUND_HEADER_WORDS * 4
    );
    assert_eq!(
        std::mem::size_of::<GpuGroundPiece>(),
        GROUND_PIECE_WORDS * 4
    );
    let steps = Piece::stairs_along_x(Vec2::ZERO, 0.0, 2, 1.0, 0.3, 1.0, 0.0);
    let ground = Ground::new(Some(plane(0.0, 0.0)), steps).unwrap();
    let words = ground.gpu_words(GroundAlign::Slope);
    assert_eq!(words.len() as u64 * 4, ground.gpu_bytes());
    let header: GpuGroundHeader = bytemuck::pod_read_unaligned(bytemuck::cast_slice(&words[..8]));
    assert_eq!((header.columns, header.rows, header.pieces), (17, 9, 2));
    assert_eq!(
        header.flags,
        GpuGroundHeader::PRESENT | GpuGroundHeader::SLOPE
    );
    assert_eq!(f32::from_bits(words[8]), 1.0);
    let piece: GpuGroundPiece =
        bytemuck::pod_read_unaligned(bytemuck::cast_slice(&words[8 + 17 * 9 + 8..]));
    assert_eq!((piece.min, piece.height), ([1.0, 0.0], 0.6));
}
