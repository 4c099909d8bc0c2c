//! Criterion: the palette pre-pass's cost per instance, from submission to
//! idle (on lavapipe the "GPU" is this CPU, so this is the host's time for
//! the compute), for 10k Fox instances (24 bones) with 0, 1 and 3 layers
//! over the base pose. Divide by 10,000 × 24 for the cost per instance per
//! bone (docs/BENCHMARKS.md, "Animation layers").

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use throng_core::gpu::{FrameBlend, GpuLayer, GpuLayerSet};
use throng_core::layers::{BoneMask, LayerMode, LayerPose, Skeleton};
use throng_render::palette::{PALETTE_MATRIX_BYTES, PaletteJob, PalettePass, PaletteTables};
use throng_render::{Gpu, GpuModel, wgpu};
use wgpu::util::DeviceExt;

const INSTANCES: u32 = 10_000;

fn benches(c: &mut Criterion) {
    let gpu = Gpu::headless().expect("a GPU adapter (lavapipe will do)");
    let (_, handle) = throng_tests::golden::baked("khronos_Fox.glb");
    let model = handle.model();
    let skeleton = Skeleton::new(model);
    let bones = skeleton.bone_count() as u32;
    let upper = BoneMask::subtrees(&skeleton, &["b_Spine01_02"]).unwrap();
    let tables = PaletteTables::new(
        &gpu.device,
        &skeleton,
        &upper.gpu_entries(&skeleton).collect::<Vec<_>>(),
    );
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let pass = PalettePass::new(&gpu.device);
    let clip = |c: usize, u: f32| {
        let clip = &model.clips[c];
        clip.frames_at(u * clip.duration)
    };
    let layer = |c: usize, mode: LayerMode, masked: bool| {
        let pose = LayerPose {
            frames: clip(c, 0.3),
            weight: 0.8,
            mode,
            mask: masked.then_some(&upper),
        };
        GpuLayer::new(&pose, 0)
    };
    let additive = LayerMode::Additive {
        reference: clip(2, 0.0),
    };
    let stacks: [(&str, Vec<GpuLayer>); 3] = [
        ("base only", vec![]),
        (
            "1 layer (masked override)",
            vec![layer(0, LayerMode::Override, true)],
        ),
        (
            "3 layers (override, masked override, additive)",
            vec![
                layer(0, LayerMode::Override, false),
                layer(1, LayerMode::Override, true),
                layer(2, additive, false),
            ],
        ),
    ];
    let palettes = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench palettes"),
        size: (INSTANCES * bones) as u64 * PALETTE_MATRIX_BYTES,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let mut g = c.benchmark_group("palette pre-pass, 10k Foxes");
    g.sample_size(10);
    for (label, layers) in &stacks {
        let sets: Vec<GpuLayerSet> = (0..INSTANCES)
            .map(|i| {
                let base = FrameBlend::single(clip(i as usize % 3, (i % 97) as f32 / 97.0));
                GpuLayerSet::new(&base, layers, i * bones)
            })
            .collect();
        let set_buffer = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("bench layer sets"),
                contents: bytemuck::cast_slice(&sets),
                usage: wgpu::BufferUsages::STORAGE,
            });
        g.bench_function(BenchmarkId::from_parameter(label), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut encoder = gpu.device.create_command_encoder(&Default::default());
                    let job = PaletteJob {
                        sets: &set_buffer,
                        first: 0,
                        count: INSTANCES,
                        palettes: &palettes,
                    };
                    pass.encode(&gpu.device, &mut encoder, &gpu_model, &tables, &job, None);
                    let start = Instant::now();
                    gpu.queue.submit([encoder.finish()]);
                    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
                    total += start.elapsed();
                }
                total
            })
        });
    }
    g.finish();
}

criterion_group!(palette, benches);
criterion_main!(palette);
