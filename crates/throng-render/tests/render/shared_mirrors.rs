//! Two views of one crowd by two renderers sharing its GPU mirror
//! (`Renderer::share_mirrors`) and their pose cache
//! (`Renderer::share_pose_cache_with`): each view's pictures are those of
//! a renderer with a mirror and cache of its own, within the golden
//! tolerance, while the crowd is uploaded once a frame (the second view
//! uploads nothing) and held once on the GPU, and the model's poses are
//! filled once — against two unshared renderers, which upload, hold and
//! fill twice.

use glam::{Mat4, Vec3};
use throng_crowd::crowd::{Crowd, InstanceId, Spawn};
use throng_render::mirror::SharedMirrors;
use throng_render::{GpuModel, PathChoice, RecordPath, Renderer, RendererOptions};
use throng_tests::golden::assert_images_match;
use throng_tests::require_gpu;
use throng_tests::scenes::{View, draw, renderer};

const SIZE: (u32, u32) = (192, 128);

/// Six rows of eight Foxes.
fn crowd() -> (Crowd, Vec<InstanceId>) {
    let mut crowd = Crowd::new();
    let model = crowd.add_model(&super::gpu_driven::fox_with_lods());
    let ids = (0..48)
        .map(|i| {
            let at = Vec3::new((i % 8) as f32 * 90.0 - 315.0, 0.0, -((i / 8) as f32) * 90.0);
            let spawn = Spawn {
                transform: Mat4::from_translation(at),
                clip: Some(i % 3),
                time: 0.11 * i as f32,
                ..Spawn::default()
            };
            crowd.spawn(model, spawn).unwrap()
        })
        .collect();
    crowd.update(0.0);
    (crowd, ids)
}

/// The two views: from the front and from the left, high.
fn cameras() -> [throng_crowd::camera::Camera; 2] {
    let view = |eye, target| View {
        eye,
        target,
        fov: 50f32.to_radians(),
        depth: (5.0, 5000.0),
    };
    [
        view(Vec3::new(0.0, 180.0, 420.0), Vec3::new(0.0, 20.0, -200.0)).camera(SIZE),
        view(
            Vec3::new(-700.0, 500.0, -100.0),
            Vec3::new(0.0, 0.0, -220.0),
        )
        .camera(SIZE),
    ]
}

fn gpu_driven(gpu: &throng_render::Gpu) -> Renderer {
    let r = renderer(
        gpu,
        RendererOptions {
            path: PathChoice::GpuDriven,
            ..RendererOptions::default()
        },
    );
    assert_eq!(
        r.path(),
        RecordPath::GpuDriven,
        "the test adapter runs the GPU-driven path"
    );
    r
}

#[test]
fn two_views_upload_and_hold_a_shared_crowd_once_and_draw_it_alike() {
    let gpu = require_gpu("shared_mirrors");
    let (mut crowd, ids) = crowd();
    let handle = crowd.models().next().unwrap().clone();
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let mirrors = SharedMirrors::new();
    let mut shared = [gpu_driven(&gpu), gpu_driven(&gpu)];
    for r in &mut shared {
        assert!(r.share_mirrors(&mirrors));
    }
    let [first, second] = &mut shared;
    assert!(second.share_pose_cache_with(first));
    assert_eq!(first.pose_cache_key(), second.pose_cache_key());
    let mut own = [gpu_driven(&gpu), gpu_driven(&gpu)];
    let cams = cameras();
    let dir = std::env::temp_dir().join("throng-shared-mirrors");
    let mut uploads = Vec::new();
    let mut fills = [[0f64; 2]; 2];
    for k in 0..4 {
        let mut bytes = [[0u64; 2]; 2];
        for (v, cam) in cams.iter().enumerate() {
            let (a, sa) = draw(&mut shared[v], &gpu, SIZE, cam, &[&crowd], &[&model]);
            let (b, sb) = draw(&mut own[v], &gpu, SIZE, cam, &[&crowd], &[&model]);
            assert_images_match(&format!("shared_view{v}_frame{k}"), &b, &a, &dir);
            assert_eq!(sa.instances, sb.instances);
            bytes[0][v] = sa.record_bytes;
            bytes[1][v] = sb.record_bytes;
            if k == 0 {
                fills[0][v] = sa.pose_fill_ms;
                fills[1][v] = sb.pose_fill_ms;
            }
        }
        println!(
            "frame {k}: uploaded by the shared views {:?}, by the unshared {:?}",
            bytes[0], bytes[1]
        );
        assert!(
            bytes[1][0] > 0,
            "frame {k}: the crowd changed, so it uploads"
        );
        assert_eq!(
            bytes[0][0], bytes[1][0],
            "frame {k}: the first view uploads the changes"
        );
        assert_eq!(
            bytes[0][1], 0,
            "frame {k}: the second shared view uploads nothing"
        );
        assert_eq!(
            bytes[1][1], bytes[1][0],
            "frame {k}: an unshared second view uploads again"
        );
        uploads.push(bytes);
        // Reading poses back finds the shared mirror.
        for r in &shared {
            r.read_poses(0, &crowd, &ids[..2])
                .expect("poses read back from the shared mirror");
        }
        // Changes between frames: time, a move, a cross-fade, a spawn.
        crowd.update(0.07);
        crowd
            .set_transform(
                ids[k],
                Mat4::from_translation(Vec3::new(40.0 * k as f32, 0.0, 60.0)),
            )
            .unwrap();
        crowd.cross_fade(ids[10 + k], (k + 1) % 3, 0.3).unwrap();
        let spawn = Spawn {
            transform: Mat4::from_translation(Vec3::new(-100.0 + 70.0 * k as f32, 0.0, 120.0)),
            clip: Some(1),
            ..Spawn::default()
        };
        crowd.spawn(throng_crowd::crowd::ModelId(0), spawn).unwrap();
    }
    let held_shared: u64 =
        mirrors.gpu_bytes() + shared.iter().map(|r| r.mirror_gpu_bytes()).sum::<u64>();
    let held_own: u64 = own.iter().map(|r| r.mirror_gpu_bytes()).sum();
    println!(
        "mirror bytes held: shared {} (of which the shared mirror {}), unshared {held_own}",
        held_shared,
        mirrors.gpu_bytes()
    );
    println!(
        "pose cache fills of the first frame, ms: shared {:?}, unshared {:?}",
        fills[0], fills[1]
    );
    assert!(
        fills[0][0] > 0.0 && fills[1][0] > 0.0 && fills[1][1] > 0.0,
        "{fills:?}"
    );
    assert_eq!(
        fills[0][1], 0.0,
        "the second shared view fills no poses: the first did"
    );
    assert_eq!(mirrors.len(), 1);
    assert_eq!(
        mirrors.gpu_bytes(),
        own[0].mirror_gpu_bytes(),
        "the shared mirror is one view's"
    );
    assert!(
        held_shared * 10 < held_own * 6,
        "two views sharing hold little more than one mirror: {held_shared} against {held_own}"
    );
    mirrors.retain(&[]);
    assert!(mirrors.is_empty());
}
