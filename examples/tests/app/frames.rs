//! What the GPU-steered scenes' tests share: a scene drawn offscreen and
//! read back before and after a run of frames.

use throng::crowd::crowd::InstanceId;
use throng::render::{Gpu, Offscreen, ReadPose};
use throng_examples::Scene;

/// A scene's poses and pictures before and after a run of frames.
pub struct BeforeAfter {
    /// The poses read back after the first frame.
    pub first: Vec<ReadPose>,
    /// The poses read back after the last frame.
    pub last: Vec<ReadPose>,
    /// The first frame.
    pub first_image: image::RgbaImage,
    /// The last frame.
    pub last_image: image::RgbaImage,
}

/// Draws `scene` into an offscreen target of `size` and reads the poses of
/// `ids` back from the GPU; steps the crowd `frames` times by 1/30 s,
/// drawing each frame; then draws and reads it again.
pub fn run_frames(
    gpu: &Gpu,
    scene: &mut Scene,
    ids: &[InstanceId],
    size: (u32, u32),
    frames: u32,
) -> BeforeAfter {
    let target = Offscreen::new(&gpu.device, size).unwrap();
    let frame = |scene: &mut Scene| {
        scene
            .render(&gpu.device, &gpu.queue, &target.view, size)
            .unwrap();
        target.read(&gpu.device, &gpu.queue).unwrap()
    };
    let read = |scene: &Scene| {
        scene
            .renderer
            .read_poses(0, &scene.crowd, ids)
            .unwrap()
            .wait(&gpu.device)
            .unwrap()
    };
    let first_image = frame(scene);
    let first = read(scene);
    for _ in 0..frames {
        scene.crowd.update(1.0 / 30.0);
        frame(scene);
    }
    let last_image = frame(scene);
    let last = read(scene);
    BeforeAfter {
        first,
        last,
        first_image,
        last_image,
    }
}
