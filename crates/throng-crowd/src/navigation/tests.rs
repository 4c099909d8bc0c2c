//! The flow field's behaviour end to end: distances and directions in open
//! space, routing through a gap, walled-in regions, every guarantee the
//! direction gives on random obstacles, and every refusal.

use glam::Vec2;
use proptest::prelude::*;
use throng_core::navigation::{GpuNavCell, NAV_MAX_GOALS, NAV_MAX_SIDE, NAV_UNREACHABLE};

use super::*;

/// Open space from a point goal: first-order fast marching overestimates
/// Euclidean distance most along the diagonals, by an error that grows
/// like the logarithm of the range (0.72 cells at 10 cells, 1.2 at 50,
/// 1.43 at 100 in a prototype), and never underestimates it. Cells: this
/// many plus [`OPEN_RELATIVE`] of the range.
const OPEN_ABSOLUTE_CELLS: f32 = 0.8;
/// See [`OPEN_ABSOLUTE_CELLS`].
const OPEN_RELATIVE: f32 = 0.01;
/// Direction error from a point goal, degrees, at 3 to 20 cells and
/// beyond 20 cells (first-order fronts are least round next to the goal).
const OPEN_ANGLE_NEAR: f32 = 12.0;
/// See [`OPEN_ANGLE_NEAR`].
const OPEN_ANGLE_FAR: f32 = 5.0;

/// The cells of `field`'s `layer` with their coordinates.
fn cells(field: &FlowField, layer: u32) -> impl Iterator<Item = (u32, u32, GpuNavCell)> + '_ {
    let w = field.width();
    field
        .layer(layer)
        .unwrap()
        .iter()
        .enumerate()
        .map(move |(i, &c)| (i as u32 % w, i as u32 / w, c))
}

/// The 8-neighbour step `(dx, dz)` a direction points at (to the nearest
/// 45°).
fn octant(dir: Vec2) -> (i32, i32) {
    let a = dir.y.atan2(dir.x);
    let k = (a / std::f32::consts::FRAC_PI_4).round() as i32;
    let (s, c) = (k as f32 * std::f32::consts::FRAC_PI_4).sin_cos();
    (c.round() as i32, s.round() as i32)
}

/// Checks the direction's guarantee at every cell of `layer`: a reachable,
/// non-goal cell's direction is a unit vector whose octant step is legal
/// (free, no blocked corner cut) and strictly downhill; every other cell
/// has none. Returns the first failure.
fn check_directions(grid: &ObstacleGrid, field: &FlowField, layer: u32) -> Result<(), String> {
    for (x, z, c) in cells(field, layer) {
        let dir = Vec2::new(c.dir_x, c.dir_z);
        if c.distance <= 0.0 {
            if dir != Vec2::ZERO {
                return Err(format!(
                    "cell ({x}, {z}) at distance {} has direction {dir}",
                    c.distance
                ));
            }
            continue;
        }
        if (dir.length() - 1.0).abs() > 1e-4 {
            return Err(format!("cell ({x}, {z}): direction {dir} is not unit"));
        }
        let (dx, dz) = octant(dir);
        let (tx, tz) = (x as i32 + dx, z as i32 + dz);
        let free = |x: i32, z: i32| x >= 0 && z >= 0 && !grid.is_blocked_cell(x as u32, z as u32);
        if !free(tx, tz) || !free(tx, z as i32) || !free(x as i32, tz) {
            return Err(format!(
                "cell ({x}, {z}): direction {dir} steps into a wall or across a corner"
            ));
        }
        let next = field.cell(layer, tx as u32, tz as u32).unwrap().distance;
        if !(next >= 0.0 && next < c.distance) {
            return Err(format!(
                "cell ({x}, {z}) at {}: its step goes to ({tx}, {tz}) at {next}",
                c.distance
            ));
        }
    }
    Ok(())
}

/// Walks from cell `(x, z)` stepping to the neighbour each direction points
/// at; the cells visited, ending in a goal cell, or `None` if it stalls.
fn walk(field: &FlowField, layer: u32, mut x: u32, mut z: u32) -> Option<Vec<(u32, u32)>> {
    let mut path = vec![(x, z)];
    for _ in 0..(field.width() * field.height()) {
        let c = field.cell(layer, x, z)?;
        if c.distance == 0.0 {
            return Some(path);
        }
        let (dx, dz) = octant(Vec2::new(c.dir_x, c.dir_z));
        if (dx, dz) == (0, 0) {
            return None;
        }
        x = x.checked_add_signed(dx)?;
        z = z.checked_add_signed(dz)?;
        path.push((x, z));
    }
    None
}

#[test]
fn open_space_distance_is_euclidean_and_directions_point_at_the_goal() {
    let grid = ObstacleGrid::new(Vec2::new(-64.5, -64.5), 1.0, 129, 129).unwrap();
    let field = FlowField::compute(&grid, &[Goal::point(Vec2::ZERO)]).unwrap();
    assert_eq!(field.cell(0, 64, 64).unwrap().distance, 0.0);
    let mut worst = (0.0f32, 0u32, 0u32);
    for (x, z, c) in cells(&field, 0) {
        let p = grid.cell_centre(x, z);
        let r = p.length();
        // Within 60 cells: clear of the 2-cell wall-comfort band along the
        // border (the border counts as a wall), so plain distance.
        if r > 60.0 {
            continue;
        }
        let error = c.distance - r;
        assert!(
            error >= -1e-4 * r && error <= OPEN_ABSOLUTE_CELLS + OPEN_RELATIVE * r,
            "cell ({x}, {z}) at range {r}: distance {}",
            c.distance
        );
        if error > worst.0 {
            worst = (error, x, z);
        }
        if r >= 3.0 {
            let angle = Vec2::new(c.dir_x, c.dir_z).angle_to(-p).abs().to_degrees();
            let bound = if r >= 20.0 {
                OPEN_ANGLE_FAR
            } else {
                OPEN_ANGLE_NEAR
            };
            assert!(
                angle <= bound,
                "cell ({x}, {z}) at range {r}: direction {angle}° off"
            );
        }
    }
    println!(
        "worst distance error {} cells at ({}, {})",
        worst.0, worst.1, worst.2
    );
}

/// A 40 × 30 grid with a wall across z = 15 but for a gap at x = 30..33;
/// the goal above the wall, at (10, 25).
fn wall_with_gap() -> (ObstacleGrid, FlowField) {
    let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 40, 30).unwrap();
    grid.block_rect(Vec2::new(0.0, 15.0), Vec2::new(30.0, 16.0));
    grid.block_rect(Vec2::new(33.0, 15.0), Vec2::new(40.0, 16.0));
    assert!(!grid.is_blocked(Vec2::new(31.5, 15.5)));
    let field = FlowField::compute(
        &grid,
        &[Goal::Circle {
            centre: Vec2::new(10.0, 25.0),
            radius: 1.5,
        }],
    )
    .unwrap();
    (grid, field)
}

#[test]
fn the_field_routes_through_the_gap() {
    let (grid, field) = wall_with_gap();
    check_directions(&grid, &field, 0).unwrap();
    // Every cell below the wall walks to the goal through the gap.
    for z in 0..15 {
        for x in 0..40 {
            let path =
                walk(&field, 0, x, z).unwrap_or_else(|| panic!("the walk from ({x}, {z}) stalls"));
            let crossing = path.iter().find(|&&(_, z)| z == 15).unwrap();
            assert!(
                (30..33).contains(&crossing.0),
                "the walk from ({x}, {z}) crosses at {crossing:?}"
            );
        }
    }
    // The distance from below is at least the way around the wall's end.
    let from = grid.cell_centre(5, 5);
    let around = from.distance(Vec2::new(30.0, 15.0))
        + Vec2::new(30.0, 16.0).distance(Vec2::new(10.0, 25.0))
        - 1.5;
    let d = field.distance_at(0, from).unwrap();
    assert!(d >= around, "{d} < {around}");
}

#[test]
fn an_agent_following_the_blended_direction_reaches_the_goal_without_touching_a_wall() {
    // What the GPU does: move along the bilinear blend of directions.
    let (grid, field) = wall_with_gap();
    for start in [
        Vec2::new(2.5, 2.5),
        Vec2::new(20.0, 14.0),
        Vec2::new(38.0, 1.0),
        Vec2::new(36.0, 14.5),
    ] {
        let mut p = start;
        let mut arrived = false;
        for _ in 0..2000 {
            assert!(!grid.is_blocked(p), "from {start}: {p} is in a wall");
            if field.sample(0, p).unwrap().distance == 0.0 {
                arrived = true;
                break;
            }
            p += field.direction_at(0, p).unwrap() * 0.1;
        }
        assert!(arrived, "from {start}: stuck at {p}");
    }
}

#[test]
fn walled_in_cells_are_unreachable() {
    let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 20, 20).unwrap();
    // A ring of walls around [10, 16)², its inside free.
    grid.block_rect(Vec2::new(10.0, 10.0), Vec2::new(16.0, 11.0));
    grid.block_rect(Vec2::new(10.0, 15.0), Vec2::new(16.0, 16.0));
    grid.block_rect(Vec2::new(10.0, 10.0), Vec2::new(11.0, 16.0));
    grid.block_rect(Vec2::new(15.0, 10.0), Vec2::new(16.0, 16.0));
    // Corners touching diagonally do not let the front through.
    grid.set_blocked_cell(2, 3, true);
    grid.set_blocked_cell(3, 2, true);
    grid.set_blocked_cell(1, 2, true);
    grid.set_blocked_cell(2, 1, true);
    let goals = [
        Goal::point(Vec2::new(5.5, 5.5)),
        Goal::point(Vec2::new(12.5, 12.5)),
    ];
    let field = FlowField::compute(&grid, &goals).unwrap();
    for layer in 0..2 {
        check_directions(&grid, &field, layer).unwrap();
    }
    let unreachable = |layer, x, z| {
        let c = field.cell(layer, x, z).unwrap();
        c.distance == NAV_UNREACHABLE && c.dir_x == 0.0 && c.dir_z == 0.0
    };
    for (x, z) in [(12, 12), (14, 14), (11, 13), (2, 2)] {
        assert!(unreachable(0, x, z), "({x}, {z}) is walled in from goal 0");
    }
    assert!(unreachable(0, 10, 10), "blocked");
    assert!(unreachable(1, 5, 5), "goal 1 is walled in");
    assert!(!unreachable(1, 13, 13));
    // The clearance is the grid's in every layer.
    for (a, b) in field.layer(0).unwrap().iter().zip(field.layer(1).unwrap()) {
        assert_eq!(a.clearance, b.clearance);
    }
}

#[test]
fn params_boxes_and_sampling_describe_the_grid() {
    let mut grid = ObstacleGrid::new(Vec2::new(-4.0, 2.0), 0.5, 16, 8).unwrap();
    grid.block_rect(Vec2::new(-1.0, 3.0), Vec2::new(0.0, 4.0));
    let goals = [
        Goal::Rect {
            min: Vec2::new(2.0, 2.0),
            max: Vec2::new(9.0, 3.0),
        },
        Goal::Circle {
            centre: Vec2::new(-3.0, 5.0),
            radius: 2.0_f32.sqrt(),
        },
    ];
    let field = FlowField::compute(&grid, &goals).unwrap();
    let params = field.params();
    assert_eq!(
        (params.origin_x, params.origin_z, params.cell_size),
        (-4.0, 2.0, 0.5)
    );
    assert_eq!(
        (params.width, params.height, params.layers, params.pad),
        (16, 8, 2, [0, 0])
    );
    assert_eq!(field.cells().len(), 16 * 8 * 2);
    let boxes = field.goal_boxes();
    assert_eq!(boxes[0], [2.0, 2.0, 4.0, 3.0], "clipped to the grid");
    let b = boxes[1];
    assert!(
        (b[0] + 4.0).abs() < 1e-5 && (b[3] - 6.0).abs() < 1e-5,
        "{b:?}"
    );
    // Nearest-cell sampling and the bilinear readings.
    let p = Vec2::new(-0.6, 3.4);
    assert_eq!(field.sample(0, p), field.cell(0, 6, 2));
    assert!(field.sample(0, p).unwrap().distance < 0.0, "in the wall");
    assert_eq!(field.sample(2, p), None);
    assert_eq!(
        field.sample(0, Vec2::new(4.0, 3.0)),
        None,
        "the far edge is off the grid"
    );
    assert_eq!(field.distance_at(0, Vec2::new(3.0, 2.5)), Some(0.0));
    assert!(field.clearance_at(Vec2::new(-0.5, 3.5)) < 0.0);
    let between = field.clearance_at(Vec2::new(-1.0, 3.5));
    assert!(between.abs() < 1e-6, "zero on the wall's face: {between}");
    assert_eq!(
        field.clearance_at(Vec2::new(-100.0, 0.0)),
        -0.5,
        "off the grid"
    );
    let way = field.direction_at(1, Vec2::new(2.0, 6.0)).unwrap();
    assert!(way.x < 0.0, "{way}");
    assert_eq!(field.direction_at(2, Vec2::ZERO), None);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 8, 8).unwrap();
    let goal = Goal::point(Vec2::splat(4.0));
    assert_eq!(
        FlowField::compute(&grid, &[]).unwrap_err(),
        NavigationError::NoGoals
    );
    let many = vec![goal; NAV_MAX_GOALS as usize + 1];
    assert!(matches!(
        FlowField::compute(&grid, &many),
        Err(NavigationError::TooManyGoals { count: 65, .. })
    ));
    let nan = Goal::point(Vec2::new(f32::NAN, 1.0));
    let error = FlowField::compute(&grid, &[goal, nan]).unwrap_err();
    assert!(error.to_string().contains("goal 1"), "{error}");
    let mut walled = grid.clone();
    walled.block_circle(Vec2::splat(4.0), 1.5);
    let error = FlowField::compute(&walled, &[goal]).unwrap_err();
    assert!(
        matches!(error, NavigationError::GoalBlocked { goal: 0, .. }),
        "{error}"
    );
    let options = FieldOptions {
        wall_penalty: f32::NAN,
        ..FieldOptions::default()
    };
    assert!(matches!(
        FlowField::compute_with(&grid, &[goal], &options),
        Err(NavigationError::BadOption { .. })
    ));
    // Too many cells is refused before anything is allocated.
    let huge = ObstacleGrid::new(Vec2::ZERO, 1.0, NAV_MAX_SIDE, NAV_MAX_SIDE).unwrap();
    let error = FlowField::compute(&huge, &[goal; 5]).unwrap_err();
    assert!(
        matches!(error, NavigationError::TooLarge { layers: 5, .. }),
        "{error}"
    );
    assert!(
        error.to_string().contains("4096 × 4096 cells and 5 layers"),
        "{error}"
    );
    assert!(ObstacleGrid::new(Vec2::ZERO, 1.0, NAV_MAX_SIDE + 1, 1).is_err());
    assert!(ObstacleGrid::new(Vec2::new(0.0, f32::NAN), 1.0, 4, 4).is_err());
    assert!(ObstacleGrid::new(Vec2::ZERO, 0.0, 4, 4).is_err());
    assert!(ObstacleGrid::new(Vec2::ZERO, 1.0, 0, 4).is_err());
}

/// Cells 4-connected to the goal cells over free cells: what the field
/// must reach (a diagonal step needs both cells beside it free, so it never
/// reaches more).
fn connected(grid: &ObstacleGrid, from: (u32, u32)) -> Vec<bool> {
    let w = grid.width();
    let mut seen = vec![false; (w * grid.height()) as usize];
    let mut stack = vec![from];
    seen[(from.1 * w + from.0) as usize] = true;
    while let Some((x, z)) = stack.pop() {
        for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let (Some(nx), Some(nz)) = (x.checked_add_signed(dx), z.checked_add_signed(dz)) else {
                continue;
            };
            let i = (nz * w + nx) as usize;
            if !grid.is_blocked_cell(nx, nz) && !seen[i] {
                seen[i] = true;
                stack.push((nx, nz));
            }
        }
    }
    seen
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn on_random_obstacles_every_direction_steps_downhill(
        w in 4u32..28,
        h in 4u32..28,
        seed in any::<u64>(),
        percent in 0u64..45,
        cell in prop_oneof![Just(1.0f32), Just(0.3), Just(2.5)],
    ) {
        let mut grid = ObstacleGrid::new(Vec2::new(-3.0, 7.0), cell, w, h).unwrap();
        let mut s = seed;
        for z in 0..h {
            for x in 0..w {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                grid.set_blocked_cell(x, z, (s >> 33) % 100 < percent);
            }
        }
        let (gx, gz) = ((seed % u64::from(w)) as u32, ((seed >> 20) % u64::from(h)) as u32);
        grid.set_blocked_cell(gx, gz, false);
        let field = FlowField::compute(&grid, &[Goal::point(grid.cell_centre(gx, gz))]).unwrap();
        if let Err(e) = check_directions(&grid, &field, 0) {
            return Err(TestCaseError::fail(e));
        }
        let reach = connected(&grid, (gx, gz));
        for (x, z, c) in cells(&field, 0) {
            let i = (z * w + x) as usize;
            prop_assert_eq!(c.distance >= 0.0, reach[i], "cell ({}, {}) at {}", x, z, c.distance);
            if reach[i] && (x, z) != (gx, gz) {
                prop_assert!(walk(&field, 0, x, z).is_some(), "the walk from ({}, {}) stalls", x, z);
                // Never shorter than the straight line.
                let straight = grid.cell_centre(x, z).distance(grid.cell_centre(gx, gz));
                prop_assert!(c.distance >= straight * (1.0 - 1e-4), "({}, {}): {} < {}", x, z, c.distance, straight);
            }
        }
    }
}

#[test]
fn a_field_is_the_same_bit_for_bit_on_any_number_of_threads() {
    // Five goals of different kinds over pillars and a wall with a gap, so
    // that the threads' shares differ in size (5 over 2, 3 and 8 threads).
    let mut grid = ObstacleGrid::covering(Vec2::ZERO, Vec2::new(60.0, 40.0), 0.5).unwrap();
    grid.block_rect(Vec2::new(29.0, 0.0), Vec2::new(31.0, 30.0));
    for k in 0..6 {
        grid.block_circle(Vec2::new(8.0 + 8.0 * k as f32, 34.0), 1.5);
    }
    let goals = [
        Goal::Circle {
            centre: Vec2::new(55.0, 5.0),
            radius: 2.0,
        },
        Goal::Rect {
            min: Vec2::new(2.0, 2.0),
            max: Vec2::new(6.0, 8.0),
        },
        Goal::Circle {
            centre: Vec2::new(45.0, 36.0),
            radius: 1.0,
        },
        Goal::Rect {
            min: Vec2::new(10.0, 20.0),
            max: Vec2::new(12.0, 22.0),
        },
        Goal::Circle {
            centre: Vec2::new(58.0, 38.0),
            radius: 1.0,
        },
    ];
    let options = FieldOptions::default();
    let one = FlowField::compute_on(&grid, &goals, &options, 1).unwrap();
    for threads in [0, 2, 3, 8] {
        let many = FlowField::compute_on(&grid, &goals, &options, threads).unwrap();
        let differing = (0..goals.len() as u32)
            .map(|l| {
                let (a, b) = (one.layer(l).unwrap(), many.layer(l).unwrap());
                a.iter().zip(b).filter(|(x, y)| x != y).count()
            })
            .collect::<Vec<_>>();
        assert!(
            one == many,
            "on {threads} threads the layers differ from one thread's in {differing:?} cells"
        );
    }
}

#[test]
fn a_job_hands_over_the_field_computed_here_once_and_never_blocks() {
    let mut grid = ObstacleGrid::covering(Vec2::ZERO, Vec2::new(40.0, 40.0), 0.25).unwrap();
    grid.block_circle(Vec2::splat(20.0), 5.0);
    let goals = vec![
        Goal::Circle {
            centre: Vec2::new(3.0, 3.0),
            radius: 1.0,
        },
        Goal::Circle {
            centre: Vec2::new(37.0, 37.0),
            radius: 1.0,
        },
    ];
    let here = FlowField::compute(&grid, &goals).unwrap();
    let mut job = FieldJob::spawn(grid.clone(), goals.clone(), FieldOptions::default());
    let mut polls = 0u64;
    let field = loop {
        polls += 1;
        if let Some(result) = job.try_take() {
            break result.unwrap();
        }
        std::thread::yield_now();
    };
    println!("the job's field arrived after {polls} polls");
    assert!(
        field == here,
        "the worker's field is not the one computed here"
    );
    assert!(job.try_take().is_none(), "a field is handed over once");
    // A refusal arrives as the job's result; a dropped job is no error.
    let refused = FieldJob::spawn(grid.clone(), Vec::new(), FieldOptions::default()).wait();
    assert_eq!(refused, Some(Err(NavigationError::NoGoals)));
    drop(FieldJob::spawn(grid, goals, FieldOptions::default()));
}
