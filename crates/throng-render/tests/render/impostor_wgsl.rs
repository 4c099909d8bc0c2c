//! The impostor shader's view functions against their Rust twins
//! (`throng_core::impostor`): `view_blend` against `ViewGrid::blend` and
//! `view_basis` against `view_basis`, run in a compute pass over directions
//! all around the sphere (below the horizon too) for several lattice sizes.
//!
//! Tolerance: [`TOLERANCE`] on each view's weight and each basis component
//! (the same arithmetic in f32 on both sides; at a lattice triangle's
//! diagonal the two may pick different triangles, where the view they
//! differ in has a weight within the tolerance of 0).

use glam::Vec3;
use throng_core::gpu::ImpostorParams;
use throng_core::impostor::{ViewGrid, view_basis};
use throng_render::shader::compose;
use throng_render::{RecordPath, wgpu};
use throng_tests::readback::read_buffer;
use throng_tests::require_gpu;
use wgpu::util::DeviceExt;

use super::support::{dispatch, kernel_io_entries};

const TOLERANCE: f32 = 1e-5;

/// Per direction: the views, their weights, the basis's right and up.
const OUT_PER_DIR: usize = 4;

const ENTRY: &str = r#"
// #import impostor

@group(0) @binding(20) var<storage, read> dirs: array<vec4<f32>>;
@group(0) @binding(21) var<storage, read_write> results: array<vec4<f32>>;

@compute @workgroup_size(64)
fn twins(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&dirs) {
        return;
    }
    let d = dirs[i].xyz;
    let b = view_blend(d);
    let m = view_basis(d);
    results[i * 4u] = vec4<f32>(vec3<f32>(b.views), 0.0);
    results[i * 4u + 1u] = vec4<f32>(b.weights, 0.0);
    results[i * 4u + 2u] = vec4<f32>(m[0], 0.0);
    results[i * 4u + 3u] = vec4<f32>(m[1], 0.0);
}
"#;

fn directions() -> Vec<Vec3> {
    let mut dirs = Vec::new();
    for a in 0..48 {
        for e in -4..=24 {
            let az = a as f32 / 48.0 * std::f32::consts::TAU;
            let el = e as f32 / 24.0 * std::f32::consts::FRAC_PI_2;
            dirs.push(Vec3::new(
                el.cos() * az.cos(),
                el.sin(),
                el.cos() * az.sin(),
            ));
        }
    }
    // Straight up, near it, and not unit length.
    dirs.extend([
        Vec3::Y,
        Vec3::new(0.001, 1.0, 0.0),
        Vec3::new(3.0, 0.5, -2.0),
    ]);
    dirs
}

#[test]
fn the_shaders_view_functions_equal_their_rust_twins() {
    let gpu = require_gpu("impostor WGSL twins");
    let source = compose("impostor_twins.wgsl", ENTRY, Some(RecordPath::Unbounded)).unwrap();
    let module = gpu
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("impostor twins"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
    let pipeline = gpu
        .device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("impostor twins"),
            layout: None,
            module: &module,
            entry_point: Some("twins"),
            compilation_options: Default::default(),
            cache: None,
        });
    let dirs = directions();
    let padded: Vec<[f32; 4]> = dirs.iter().map(|d| d.extend(0.0).to_array()).collect();
    let mut worst = (0.0f32, String::new());
    for side in [2u32, 5, 12] {
        let params = ImpostorParams {
            views: side,
            frames: 1,
            cell: 16,
            layer_size: 16,
            cells_per_row: 1,
            cells_per_layer: 1,
            frame_count: 1,
            clip_count: 1,
            ..ImpostorParams::default()
        };
        let device = &gpu.device;
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(&padded),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let size = (dirs.len() * OUT_PER_DIR * 16) as u64;
        let output = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let group0 = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &kernel_io_entries(&input, &output),
        });
        let group1 = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(1),
            entries: &[wgpu::BindGroupEntry {
                binding: 12,
                resource: uniform.as_entire_binding(),
            }],
        });
        let workgroups = (dirs.len() as u32).div_ceil(64);
        dispatch(&gpu, &pipeline, &[&group0, &group1], workgroups);
        let bytes = read_buffer(&gpu, &output, size);
        let got: &[[f32; 4]] = bytemuck::cast_slice(&bytes);

        let grid = ViewGrid { side };
        for (i, d) in dirs.iter().enumerate() {
            let r = &got[i * OUT_PER_DIR..(i + 1) * OUT_PER_DIR];
            // Weight per view, both sides.
            let mut cpu = vec![0.0f32; grid.count() as usize];
            let mut gpu_w = vec![0.0f32; grid.count() as usize];
            for (view, w) in grid.blend(*d) {
                cpu[view as usize] += w;
            }
            for (&view, &w) in r[0][..3].iter().zip(&r[1][..3]) {
                let view = view as usize;
                assert!(
                    view < gpu_w.len(),
                    "side {side}, {d}: view {view} out of range"
                );
                gpu_w[view] += w;
            }
            let [right, up, _] = view_basis(*d);
            let diffs = cpu
                .iter()
                .zip(&gpu_w)
                .map(|(a, b)| (a - b).abs())
                .chain((0..3).map(|c| (right[c] - r[2][c]).abs()))
                .chain((0..3).map(|c| (up[c] - r[3][c]).abs()));
            for diff in diffs {
                if diff > worst.0 {
                    worst = (diff, format!("side {side}, direction {d}"));
                }
            }
        }
    }
    println!(
        "{} directions × 3 lattices: worst difference {:.2e} ({}), tolerance {TOLERANCE:e}",
        dirs.len(),
        worst.0,
        worst.1
    );
    assert!(
        worst.0 <= TOLERANCE,
        "worst difference {} at {}",
        worst.0,
        worst.1
    );
}
