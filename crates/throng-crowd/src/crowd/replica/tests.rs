//! The replica against its source: after any sequence of writes and syncs
//! it holds the same state, a mirror reading the replica's log stays equal
//! to the source, and an idle sync copies nothing.

use glam::{Mat4, Vec3, Vec4};
use proptest::prelude::*;
use throng_core::gpu::{GpuInstance, GpuTransform};

use super::super::fixtures::{at, test_model};
use super::super::{ChangeCursor, Changes, Crowd, InstanceId, Layer, Motion, PathEnd, Spawn};
use super::CrowdReplica;

/// Field by field, everything but the log (each crowd's own) and events
/// (the source's owner drains them).
fn differences(a: &Crowd, b: &Crowd) -> Vec<&'static str> {
    macro_rules! fields {
        ($($f:ident),*) => {{
            let mut out = Vec::new();
            $(if format!("{:?}", a.$f) != format!("{:?}", b.$f) { out.push(stringify!($f)); })*
            out
        }};
    }
    let mut out = fields!(
        models,
        slots,
        free,
        slot_of,
        rows,
        local_spheres,
        anims,
        metas,
        tints,
        looks,
        looks_generation,
        followers,
        seconds,
        clock,
        active,
        masks,
        layers,
        motions,
        points,
        points_generation,
        paths,
        free_paths,
        root_keys,
        simulated,
        sim_serial,
        ground,
        ground_generation,
        foot_ik,
        legs_generation,
        spheres_stale
    );
    // Stale spheres are recomputed from the rows by every reader.
    if !a.spheres_stale && format!("{:?}", a.spheres) != format!("{:?}", b.spheres) {
        out.push("spheres");
    }
    out
}

/// A GPU mirror as the renderer keeps one: per dense slot, the state and
/// transform, refreshed from a crowd's log.
#[derive(Default)]
struct Mirror {
    cursor: ChangeCursor,
    instances: Vec<GpuInstance>,
    transforms: Vec<GpuTransform>,
    reads: usize,
}

impl Mirror {
    fn read(&mut self, crowd: &Crowd) {
        let n = crowd.len();
        match crowd.changes(&mut self.cursor) {
            Changes::All => {
                self.instances = (0..n).map(|d| crowd.gpu_instance(d)).collect();
                self.transforms = crowd.gpu_transforms()[..n].to_vec();
                self.reads += n;
            }
            Changes::Slots(s) => {
                self.instances.resize(n, GpuInstance::default());
                self.transforms.resize(n, GpuTransform::default());
                for c in s.iter().filter(|c| c.slot() < n) {
                    self.instances[c.slot()] = crowd.gpu_instance(c.slot());
                    self.transforms[c.slot()] = crowd.gpu_transforms()[c.slot()];
                }
                self.reads += s.len();
            }
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Spawn(u8, usize),
    Despawn(usize),
    Move(usize, u8),
    Play(usize, usize),
    Fade(usize, usize),
    Speed(usize, u8),
    Pause(usize),
    Tint(usize),
    Layer(usize),
    Unlayer(usize),
    Velocity(usize),
    Path(usize),
    Attach(usize),
    Update(u8),
    Bulk(u8, bool),
    Mask,
    Ground(u8),
    FootIk(usize),
    Legs,
    Clear,
    Sync,
}

fn op() -> impl Strategy<Value = Op> {
    let i = 0usize..64;
    prop_oneof![
        4 => (any::<u8>(), 0usize..2).prop_map(|(x, c)| Op::Spawn(x, c)),
        2 => i.clone().prop_map(Op::Despawn),
        3 => (i.clone(), any::<u8>()).prop_map(|(d, x)| Op::Move(d, x)),
        1 => (i.clone(), 0usize..2).prop_map(|(d, c)| Op::Play(d, c)),
        1 => (i.clone(), 0usize..2).prop_map(|(d, c)| Op::Fade(d, c)),
        1 => (i.clone(), any::<u8>()).prop_map(|(d, s)| Op::Speed(d, s)),
        1 => i.clone().prop_map(Op::Pause),
        1 => i.clone().prop_map(Op::Tint),
        1 => i.clone().prop_map(Op::Layer),
        1 => i.clone().prop_map(Op::Unlayer),
        1 => i.clone().prop_map(Op::Velocity),
        1 => i.clone().prop_map(Op::Path),
        1 => i.clone().prop_map(Op::Attach),
        3 => any::<u8>().prop_map(Op::Update),
        1 => (any::<u8>(), any::<bool>()).prop_map(|(x, r)| Op::Bulk(x, r)),
        1 => Just(Op::Mask),
        1 => any::<u8>().prop_map(Op::Ground),
        1 => i.clone().prop_map(Op::FootIk),
        1 => Just(Op::Legs),
        1 => Just(Op::Clear),
        4 => Just(Op::Sync),
    ]
}

impl Op {
    /// The instance (an index into the ids spawned) an op on one instance
    /// writes.
    fn target(&self) -> Option<usize> {
        match *self {
            Op::Despawn(i)
            | Op::Move(i, _)
            | Op::Play(i, _)
            | Op::Fade(i, _)
            | Op::Speed(i, _)
            | Op::Pause(i)
            | Op::Tint(i)
            | Op::Layer(i)
            | Op::Unlayer(i)
            | Op::Velocity(i)
            | Op::Path(i)
            | Op::FootIk(i)
            | Op::Attach(i) => Some(i),
            _ => None,
        }
    }
}

/// Applies `op` to the source (errors, e.g. on a despawned id, are part of
/// the game: ignored).
fn apply(crowd: &mut Crowd, ids: &mut Vec<InstanceId>, op: &Op) {
    let m = super::super::ModelId(0);
    if let Some(i) = op.target() {
        if let Some(&id) = ids.get(i % ids.len().max(1)) {
            ids.extend(apply_to(crowd, id, op));
        }
        return;
    }
    match *op {
        Op::Spawn(x, c) => {
            let s = Spawn {
                clip: Some(c),
                ..at(x as f32)
            };
            ids.extend(crowd.spawn(m, s));
        }
        Op::Update(t) => crowd.update(t as f32 / 100.0),
        Op::Bulk(x, refresh) => {
            let n = crowd.len();
            let _ = crowd.write_transforms(0..n, |rows| {
                for r in rows {
                    r[0].w += x as f32;
                }
            });
            if refresh {
                crowd.refresh_bounds();
            }
        }
        Op::Mask => {
            let _ = crowd.mask_subtrees(m, &["root"]);
        }
        Op::Legs => {
            // The one-bone model has no leg: configured as none.
            let _ = crowd.set_legs(m, &[]);
        }
        Op::Ground(x) => {
            use throng_core::ground::{Ground, GroundAlign, Piece};
            let step = Piece::step(glam::Vec2::ZERO, glam::Vec2::splat(f32::from(x) + 1.0), 0.5);
            let ground =
                (x % 3 != 0).then(|| std::sync::Arc::new(Ground::new(None, vec![step]).unwrap()));
            let align = if x % 2 == 0 {
                GroundAlign::Slope
            } else {
                GroundAlign::Upright
            };
            crowd.set_ground(ground, align);
        }
        Op::Clear => {
            crowd.clear();
            ids.clear();
        }
        _ => {}
    }
}

/// Applies an op on one instance, `id`; a prop it attaches is returned.
fn apply_to(crowd: &mut Crowd, id: InstanceId, op: &Op) -> Option<InstanceId> {
    let prop = super::super::ModelId(1);
    let _ = match *op {
        Op::Despawn(_) => crowd.despawn(id),
        Op::Move(_, x) => crowd.set_transform(id, Mat4::from_translation(Vec3::splat(x as f32))),
        Op::Play(_, c) => crowd.play(id, c),
        Op::Fade(_, c) => crowd.cross_fade(id, c, 0.5),
        Op::Speed(_, s) => crowd.set_speed(id, s as f32 / 64.0),
        Op::Pause(_) => crowd.pause(id),
        Op::Tint(_) => crowd.set_tint(id, Vec4::new(1.0, 0.5, 0.25, 1.0)),
        Op::Layer(_) => crowd.set_layers(id, &[Layer::new(0)]),
        Op::Unlayer(_) => crowd.set_layers(id, &[]),
        Op::FootIk(_) => {
            let on = crowd.foot_ik(id).is_ok_and(|on| !on);
            crowd.set_foot_ik(id, on)
        }
        Op::Velocity(_) => {
            let velocity = Vec3::new(1.0, 0.0, 0.5);
            crowd.set_motion(
                id,
                Motion::Velocity {
                    velocity,
                    yaw_rate: 0.1,
                },
            )
        }
        Op::Path(_) => {
            let points = [Vec3::ZERO, Vec3::X * 10.0, Vec3::new(10.0, 0.0, 10.0)];
            crowd.add_path(&points).and_then(|path| {
                let end = PathEnd::Loop;
                let motion = Motion::Path {
                    path,
                    speed: 2.0,
                    start: 0.0,
                    end,
                    turn: 1.0,
                };
                crowd.set_motion(id, motion)
            })
        }
        Op::Attach(_) => {
            return crowd
                .attach(id, prop, 0, Mat4::from_translation(Vec3::Y))
                .ok();
        }
        _ => Ok(()),
    };
    None
}

fn source() -> Crowd {
    let mut crowd = Crowd::new();
    crowd.add_model(&test_model(1.0));
    crowd.add_model(&test_model(0.25));
    crowd
}

/// Syncs, then checks the replica's state and the mirror reading it.
fn check(source: &Crowd, replica: &mut CrowdReplica, mirror: &mut Mirror) -> Result<(), String> {
    replica.sync(source);
    let diff = differences(source, replica.crowd());
    if !diff.is_empty() {
        return Err(format!("the replica differs from its source in {diff:?}"));
    }
    mirror.read(replica.crowd());
    let n = source.len();
    for d in 0..n {
        if mirror.instances[d] != source.gpu_instance(d) {
            return Err(format!("mirror slot {d} of {n}: state differs"));
        }
        if mirror.transforms[d] != source.gpu_transforms()[d] {
            return Err(format!("mirror slot {d} of {n}: transform differs"));
        }
    }
    if replica.crowd().gpu_tables() != source.gpu_tables() {
        return Err("the replica's GPU tables differ".into());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_replica_stays_equal_to_its_source(ops in proptest::collection::vec(op(), 1..80)) {
        let mut crowd = source();
        let mut ids = Vec::new();
        let mut replica = CrowdReplica::new();
        let mut mirror = Mirror::default();
        for op in &ops {
            apply(&mut crowd, &mut ids, op);
            if matches!(op, Op::Sync) {
                check(&crowd, &mut replica, &mut mirror).map_err(TestCaseError::fail)?;
            }
        }
        check(&crowd, &mut replica, &mut mirror).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn an_idle_sync_copies_nothing_and_a_moved_agent_one_slot() {
    let mut crowd = source();
    let ids: Vec<_> = (0..1000)
        .map(|i| crowd.spawn(super::super::ModelId(0), at(i as f32)).unwrap())
        .collect();
    let mut replica = CrowdReplica::new();
    let mut mirror = Mirror::default();
    let first = replica.sync(&crowd);
    assert!(first.whole && first.instances == 1000, "{first:?}");
    mirror.read(replica.crowd());
    assert_eq!(mirror.reads, 1000);
    let identity = replica.crowd().identity();
    for _ in 0..5 {
        crowd.update(1.0 / 60.0);
        let s = replica.sync(&crowd);
        assert!(!s.whole && s.instances == 0, "an idle frame copied {s:?}");
        mirror.read(replica.crowd());
    }
    assert_eq!(mirror.reads, 1000, "an idle frame reached the mirror");
    assert_eq!(replica.crowd().clock(), crowd.clock());
    crowd
        .set_transform(ids[7], Mat4::from_translation(Vec3::Y))
        .unwrap();
    let s = replica.sync(&crowd);
    assert!(!s.whole && s.instances == 1, "one move copied {s:?}");
    mirror.read(replica.crowd());
    assert_eq!(mirror.reads, 1001, "one move, one slot read by the mirror");
    assert_eq!(
        replica.crowd().identity(),
        identity,
        "the replica keeps its identity"
    );
    assert!(differences(&crowd, replica.crowd()).is_empty());
}

#[test]
fn another_source_or_a_cut_log_is_copied_whole_under_the_same_identity() {
    let mut a = source();
    a.spawn(super::super::ModelId(0), at(1.0)).unwrap();
    let mut b = source();
    for i in 0..3 {
        b.spawn(super::super::ModelId(1), at(i as f32)).unwrap();
    }
    let mut replica = CrowdReplica::new();
    let mut mirror = Mirror::default();
    replica.sync(&a);
    mirror.read(replica.crowd());
    let identity = replica.crowd().identity();
    let s = replica.sync(&b);
    assert!(s.whole && s.instances == 3, "{s:?}");
    assert!(differences(&b, replica.crowd()).is_empty());
    assert_eq!(replica.crowd().identity(), identity);
    let mut cursor = mirror.cursor;
    assert_eq!(
        replica.crowd().changes(&mut cursor),
        Changes::All,
        "the mirror is told to take everything"
    );
}
