//! The steering tests' overlap measure: how many agents (world x, z) have
//! a centre nearer than a limit to another's — the navigation tests, the
//! plaza example's and the web page's steered crowd all count it so.

use glam::Vec2;

/// Agents overlapping another: centres nearer than `limit` (a grid of
/// `limit`-sized cells, so linear in the agents).
pub fn overlapping(points: &[Vec2], limit: f32) -> usize {
    let cell = limit.max(1e-3);
    let mut grid = std::collections::HashMap::<(i32, i32), Vec<usize>>::new();
    let key = |p: Vec2| ((p.x / cell).floor() as i32, (p.y / cell).floor() as i32);
    for (i, &p) in points.iter().enumerate() {
        grid.entry(key(p)).or_default().push(i);
    }
    let mut count = 0;
    for (i, &p) in points.iter().enumerate() {
        let (cx, cz) = key(p);
        let hit = (-1..=1).any(|dz| {
            (-1..=1).any(|dx| {
                grid.get(&(cx + dx, cz + dz)).is_some_and(|list| {
                    list.iter()
                        .any(|&j| j != i && points[j].distance(p) < limit)
                })
            })
        });
        count += usize::from(hit);
    }
    count
}
