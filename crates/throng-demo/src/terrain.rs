//! The demo's terrain: rolling hills with a stair up to a platform, sized
//! after a model's body length ([`demo_ground`]), standing instances set
//! on it ([`settle`]) and it laid under a crowd ([`lay_demo_ground`]), and
//! its mesh — the heightfield as a grid of
//! triangles, each piece as a box standing on it — for
//! [`crate::terrain_pass`] to draw ([`TerrainMesh`]).

use glam::{Mat4, Vec2, Vec3};
use std::sync::Arc;

use throng_core::ground::{Ground, GroundAlign, GroundError, Heightfield, Piece};
use throng_core::motion::MotionKind;
use throng_crowd::crowd::{Crowd, InstanceId};

/// Heightfield samples per side of the demo's terrain.
const SAMPLES: u32 = 257;

/// Risers of the demo's stair, and each one's height in body lengths
/// (the Fox's leg is about 0.35 of its length: a riser is 0.3 leg).
pub const STAIR_RISERS: u32 = 4;
/// A riser's height, body lengths.
pub const STAIR_RISE: f32 = 0.1;

/// Rolling hills over the square of half side `half` around world (x, z)
/// `centre` (slopes up to about 20°, heights within ±1.3 body lengths),
/// and a stair of [`STAIR_RISERS`] risers, three bodies wide, climbing
/// along +x from 1.5 bodies east of the centre onto a square platform;
/// `body` is the model's length, the unit of every height.
pub fn demo_ground(centre: Vec2, half: f32, body: f32) -> Result<Ground, GroundError> {
    let origin = centre - Vec2::splat(half);
    let spacing = 2.0 * half / (SAMPLES - 1) as f32;
    let hills = move |p: Vec2| {
        let q = (p - centre) / body;
        body * (0.45 * (q.x / 3.0).sin() * (q.y / 2.5).cos() + 0.8 * ((q.x + q.y) / 13.0).sin())
    };
    let heightfield = Heightfield::from_fn(origin, spacing, SAMPLES, SAMPLES, hills)?;
    demo_ground_on(heightfield, centre, body)
}

/// The demo's stair and platform (as [`demo_ground`] places them around
/// `centre`, sized after `body`) on `heightfield`: an image's, say.
pub fn demo_ground_on(
    heightfield: Heightfield,
    centre: Vec2,
    body: f32,
) -> Result<Ground, GroundError> {
    // The stair and its platform stand on the highest ground under them.
    let start = centre + Vec2::new(1.5 * body, -1.5 * body);
    let tread = 0.35 * body;
    let platform = 3.0 * body;
    let lo = start;
    let hi = start + Vec2::new(STAIR_RISERS as f32 * tread + platform, 3.0 * body);
    let base = (0..=8)
        .flat_map(|i| (0..=8).map(move |j| lo + (hi - lo) * Vec2::new(i as f32, j as f32) / 8.0))
        .map(|p| heightfield.sample(p).height)
        .fold(f32::MIN, f32::max);
    let pieces = Piece::stairs_along_x(
        start,
        base,
        STAIR_RISERS,
        tread,
        STAIR_RISE * body,
        3.0 * body,
        platform,
    );
    Ground::new(Some(heightfield), pieces)
}

/// Sets each standing instance of `ids` on `ground` (a crowd's ground
/// places only the moving ones: Throng leaves a still instance where its
/// transform puts it), keeping its rotation.
pub fn settle(crowd: &mut Crowd, ground: &Ground, ids: &[InstanceId]) {
    for &id in ids {
        if !matches!(crowd.motion(id), Ok(MotionKind::Still)) {
            continue;
        }
        let Ok(world) = crowd.world_transform(id) else {
            continue;
        };
        let at = world.w_axis.truncate();
        let lift = ground.height_at(Vec2::new(at.x, at.z)) - at.y;
        let _ = crowd.set_transform(id, Mat4::from_translation(Vec3::Y * lift) * world);
    }
}

/// Lays [`demo_ground`] (`centre`, `half`, `body`) under `crowd`: its
/// standing instances set on it ([`settle`]), then the crowd's ground,
/// turned as `align` says. Returns the ground (to draw it).
pub fn lay_demo_ground(
    crowd: &mut Crowd,
    centre: Vec2,
    half: f32,
    body: f32,
    align: GroundAlign,
) -> Result<Arc<Ground>, GroundError> {
    let ground = Arc::new(demo_ground(centre, half, body)?);
    let ids: Vec<InstanceId> = crowd.ids().collect();
    settle(crowd, &ground, &ids);
    crowd.set_ground(Some(ground.clone()), align);
    Ok(ground)
}

/// One vertex of the terrain's mesh: world position, unit normal and
/// what it is made of.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TerrainVertex {
    /// World position.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// [`TerrainVertex::SOIL`] (the heightfield) or
    /// [`TerrainVertex::STONE`] (a piece).
    pub material: f32,
}

impl TerrainVertex {
    /// The heightfield's material: grass, rock where steep.
    pub const SOIL: f32 = 0.0;
    /// A piece's: stone.
    pub const STONE: f32 = 1.0;
}

/// A ground's triangles: the heightfield's grid (at most `max_side`
/// vertices a side) and each piece as a box from its top down to below
/// the heightfield under it. Counter-clockwise seen from outside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TerrainMesh {
    /// Vertices.
    pub vertices: Vec<TerrainVertex>,
    /// Triangle list indices.
    pub indices: Vec<u32>,
}

impl TerrainMesh {
    /// The mesh of `ground`, the heightfield sampled on at most
    /// `max_side` vertices a side (a flat ground without a heightfield:
    /// its pieces only).
    pub fn of(ground: &Ground, max_side: u32) -> Self {
        let mut mesh = Self::default();
        if let Some(h) = ground.heightfield() {
            mesh.heightfield(h, max_side.max(2));
        }
        for piece in ground.pieces() {
            let floor = [
                piece.min,
                piece.max,
                Vec2::new(piece.min.x, piece.max.y),
                Vec2::new(piece.max.x, piece.min.y),
            ]
            .iter()
            .map(|&p| ground.heightfield().map_or(0.0, |h| h.sample(p).height))
            .fold(f32::MAX, f32::min)
                - 0.05 * (piece.max - piece.min).max_element();
            mesh.piece(piece, floor);
        }
        mesh
    }

    fn heightfield(&mut self, h: &Heightfield, max_side: u32) {
        let (columns, rows) = (h.columns().min(max_side), h.rows().min(max_side));
        let span = h.max() - h.origin();
        let base = self.vertices.len() as u32;
        for j in 0..rows {
            for i in 0..columns {
                let p = h.origin()
                    + span
                        * Vec2::new(
                            i as f32 / (columns - 1) as f32,
                            j as f32 / (rows - 1) as f32,
                        );
                let s = h.sample(p);
                self.vertices.push(TerrainVertex {
                    position: [p.x, s.height, p.y],
                    normal: s.normal().to_array(),
                    material: TerrainVertex::SOIL,
                });
            }
        }
        for j in 0..rows - 1 {
            for i in 0..columns - 1 {
                let a = base + j * columns + i;
                let (b, c, d) = (a + 1, a + columns, a + columns + 1);
                // Seen from above (+y), x right and z down: a b / c d.
                self.indices.extend([a, c, b, b, c, d]);
            }
        }
    }

    fn quad(&mut self, corners: [Vec3; 4], normal: Vec3) {
        let base = self.vertices.len() as u32;
        for c in corners {
            self.vertices.push(TerrainVertex {
                position: c.to_array(),
                normal: normal.to_array(),
                material: TerrainVertex::STONE,
            });
        }
        self.indices
            .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }

    fn piece(&mut self, piece: &Piece, floor: f32) {
        let top = |x: f32, z: f32| Vec3::new(x, piece.height_at(Vec2::new(x, z)), z);
        let (x0, z0, x1, z1) = (piece.min.x, piece.min.y, piece.max.x, piece.max.y);
        let normal = Vec3::new(-piece.slope.x, 1.0, -piece.slope.y).normalize();
        self.quad([top(x0, z0), top(x0, z1), top(x1, z1), top(x1, z0)], normal);
        let down = |v: Vec3| Vec3::new(v.x, floor, v.z);
        // Sides, each from its top edge down, facing out.
        let sides = [
            (top(x0, z1), top(x0, z0), -Vec3::X),
            (top(x1, z0), top(x1, z1), Vec3::X),
            (top(x0, z0), top(x1, z0), -Vec3::Z),
            (top(x1, z1), top(x0, z1), Vec3::Z),
        ];
        for (a, b, n) in sides {
            self.quad([a, down(a), down(b), b], n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_ground_has_hills_and_a_walkable_stair_onto_a_platform() {
        let body = 2.0;
        let ground = demo_ground(Vec2::new(10.0, -5.0), 60.0, body).unwrap();
        let steepest = (0..200)
            .map(|i| {
                ground.sample(Vec2::new(
                    10.0 + (i as f32 - 100.0) * 0.5,
                    -5.0 + (i % 17) as f32,
                ))
            })
            .map(|s| s.slope_angle().to_degrees())
            .fold(0.0, f32::max);
        assert!(steepest > 5.0 && steepest < 25.0, "steepest {steepest}°");
        let stair = &ground.pieces()[..STAIR_RISERS as usize];
        for pair in stair.windows(2) {
            assert!((pair[1].height - pair[0].height - STAIR_RISE * body).abs() < 1e-5);
        }
        // Each step stands above the hills under it.
        for s in stair {
            let h = ground
                .heightfield()
                .unwrap()
                .sample((s.min + s.max) * 0.5)
                .height;
            assert!(s.height > h, "step at {} under the hill ({h})", s.height);
        }
    }

    #[test]
    fn an_image_s_grey_levels_carry_the_stair_too() {
        // A 3 × 2 image: black to white along x.
        let luma: [u16; 6] = [0, 32_768, 65_535, 0, 32_768, 65_535];
        let h = Heightfield::from_luma(
            Vec2::new(-1.0, -1.0),
            1.0,
            3,
            2,
            &luma,
            65_535.0,
            (-1.0, 2.0),
        )
        .unwrap();
        assert_eq!(h.sample(Vec2::new(-1.0, -1.0)).height, -1.0);
        assert_eq!(h.sample(Vec2::new(1.0, 0.0)).height, 2.0);
        let ground = demo_ground_on(h, Vec2::ZERO, 0.2).unwrap();
        assert_eq!(ground.pieces().len(), STAIR_RISERS as usize);
        let top = ground.pieces()[0].height;
        assert!(
            top > ground
                .heightfield()
                .unwrap()
                .sample(ground.pieces()[0].min)
                .height
        );
    }

    #[test]
    fn the_mesh_covers_the_heightfield_and_boxes_every_piece() {
        let ground = demo_ground(Vec2::ZERO, 30.0, 1.0).unwrap();
        let mesh = TerrainMesh::of(&ground, 65);
        let grid = 65 * 65;
        assert_eq!(mesh.vertices.len(), grid + ground.pieces().len() * 20);
        assert_eq!(mesh.indices.len(), 64 * 64 * 6 + ground.pieces().len() * 30);
        assert!(
            mesh.indices
                .iter()
                .all(|&i| (i as usize) < mesh.vertices.len())
        );
        // Grid vertices lie on the ground, their normals the ground's.
        for v in &mesh.vertices[..grid] {
            let p = Vec2::new(v.position[0], v.position[2]);
            let s = ground.heightfield().unwrap().sample(p);
            assert!((v.position[1] - s.height).abs() < 1e-5);
            assert!((Vec3::from(v.normal) - s.normal()).length() < 1e-5);
        }
        // Triangles of the grid face up.
        for t in mesh.indices[..64 * 64 * 6].chunks(3) {
            let [a, b, c] =
                [t[0], t[1], t[2]].map(|i| Vec3::from(mesh.vertices[i as usize].position));
            assert!((b - a).cross(c - a).y > 0.0, "a triangle faces down");
        }
    }
}
