//! The cull's occlusion test itself (`occluded` in `throng-render/src/passes/cull/cull.wgsl`,
//! docs/design/occlusion.md "The test"), run on the GPU over thousands of
//! random boxes against a synthetic depth pyramid, and held to the rule it
//! must keep: a box it calls occluded lies behind every level-0 texel its
//! screen rectangle covers (each texel's value is the farthest depth
//! there, so anything nearer than all of them is hidden everywhere). A
//! test that samples too few texels — a level too fine for its 2 × 2, or
//! fewer corners — calls boxes occluded that show through a texel it did
//! not read; this finds them, where whole scenes rarely line up so.
//!
//! The pyramid is random blocks of near and far depths at several scales
//! (the sky's cleared 1 among them) with each level the farthest of the 2
//! × 2 below it, as the real reduction makes it; the boxes are placed and
//! sized at random in front of a perspective camera.

use glam::{Vec3, Vec4};
use throng_core::gpu::CullView;
use throng_render::occlusion::{atlas_descriptor, atlas_size, level_origin, level_size};
use throng_render::shader::compose;
use throng_render::{RecordPath, wgpu};
use throng_tests::readback::read_buffer;
use throng_tests::require_gpu;
use throng_tests::rng::Rng;
use wgpu::util::DeviceExt;

use super::support::{dispatch, kernel_io_entries};

const ENTRY: &str = r#"
// #import cull

struct Probe {
    centre: vec4<f32>,
    half: vec4<f32>,
}

@group(0) @binding(20) var<storage, read> probes: array<Probe>;
@group(0) @binding(21) var<storage, read_write> hidden: array<u32>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&probes) {
        return;
    }
    let p = probes[i];
    let t = GpuTransform(
        vec4<f32>(1.0, 0.0, 0.0, 0.0),
        vec4<f32>(0.0, 1.0, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, 1.0, 0.0),
    );
    hidden[i] = select(0u, 1u, occluded(LocalBox(p.centre.xyz, p.half.xyz), t));
}
"#;

/// Level 0 of the synthetic pyramid (a depth buffer of 1.5 times this in
/// each axis, say), and the boxes tried.
const SIZE0: (u32, u32) = (128, 64);
const PROBES: usize = 20_000;

/// A random level 0: walls of 16-texel blocks at depths 0.3 to 0.95 (the
/// boxes lie at 0.67 to 0.99), with gaps of 1, 2 and 4 texels to the
/// cleared far depth and some nearer patches punched into them.
fn level0(rng: &mut Rng) -> Vec<f32> {
    let (w, h) = SIZE0;
    let mut depth = vec![1.0f32; (w * h) as usize];
    for (block, chance, near) in [
        (16u32, 1.0f32, (0.3f32, 0.95f32)),
        (4, 0.15, (0.5, 0.9)),
        (4, 0.04, (1.0, 1.0)),
        (2, 0.03, (1.0, 1.0)),
        (1, 0.01, (1.0, 1.0)),
    ] {
        let (bw, bh) = (w.div_ceil(block), h.div_ceil(block));
        for by in 0..bh {
            for bx in 0..bw {
                if rng.range(0.0, 1.0) >= chance {
                    continue;
                }
                let d = rng.range(near.0, near.1);
                for y in by * block..((by + 1) * block).min(h) {
                    for x in bx * block..((bx + 1) * block).min(w) {
                        depth[(y * w + x) as usize] = d;
                    }
                }
            }
        }
    }
    depth
}

/// Every level from level 0 (down to one texel), as the reduction makes
/// them.
fn levels(level0: Vec<f32>) -> Vec<Vec<f32>> {
    let count = 32 - SIZE0.0.max(SIZE0.1).leading_zeros();
    super::occlusion_pyramid::with_coarser_levels(level0, SIZE0, count)
}

#[test]
fn a_box_called_occluded_is_behind_every_texel_it_covers() {
    let gpu = require_gpu("occluded() against the rule");
    let device = &gpu.device;
    let mut rng = Rng(0x0cc1);
    let pyramid = levels(level0(&mut rng));
    let count = pyramid.len() as u32;
    let atlas = atlas_size(SIZE0, count);
    // The two atlases: even levels in one, odd in the other.
    let mut texels = [
        vec![0f32; (atlas.0 * atlas.1) as usize],
        vec![0f32; (atlas.0 * atlas.1) as usize],
    ];
    for (k, level) in pyramid.iter().enumerate() {
        let (w, h) = level_size(SIZE0, k as u32);
        let (ox, oy) = level_origin(SIZE0, k as u32);
        for y in 0..h {
            for x in 0..w {
                texels[k % 2][((oy + y) * atlas.0 + ox + x) as usize] = level[(y * w + x) as usize];
            }
        }
    }
    let views = texels.map(|data| {
        device
            .create_texture_with_data(
                &gpu.queue,
                &atlas_descriptor(
                    "synthetic pyramid",
                    atlas,
                    wgpu::TextureUsages::TEXTURE_BINDING,
                ),
                wgpu::util::TextureDataOrder::LayerMajor,
                bytemuck::cast_slice(&data),
            )
            .create_view(&Default::default())
    });

    let aspect = SIZE0.0 as f32 / SIZE0.1 as f32;
    let clip_from_world = glam::camera::rh::proj::directx::perspective(1.0, aspect, 1.0, 100.0)
        * glam::camera::rh::view::look_at_mat4(Vec3::ZERO, Vec3::NEG_Z, Vec3::Y);
    let view = CullView {
        clip_from_world: clip_from_world.to_cols_array_2d(),
        pyramid: [SIZE0.0, SIZE0.1, count, 0],
        ..CullView::default()
    };
    // Boxes in front of the camera, from specks to a fifth of the view.
    let probes: Vec<[Vec4; 2]> = (0..PROBES)
        .map(|_| {
            let z = -rng.range(3.0, 90.0);
            let reach = -z * 0.55;
            let centre = Vec3::new(
                rng.range(-reach * aspect, reach * aspect),
                rng.range(-reach, reach),
                z,
            );
            let half = Vec3::new(
                rng.range(0.01, 0.1),
                rng.range(0.01, 0.1),
                rng.range(0.01, 0.05),
            ) * -z;
            [centre.extend(0.0), half.extend(0.0)]
        })
        .collect();

    let source = compose("occluded_probe.wgsl", ENTRY, Some(RecordPath::GpuDriven)).unwrap();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("occluded probe"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let texture = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    };
    let buffer = |binding, ty| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("occluded probe"),
        entries: &[
            buffer(0, wgpu::BufferBindingType::Uniform),
            texture(13),
            texture(14),
            buffer(20, wgpu::BufferBindingType::Storage { read_only: true }),
            buffer(21, wgpu::BufferBindingType::Storage { read_only: false }),
        ],
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("occluded probe"),
        layout: Some(
            &device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("occluded probe"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            }),
        ),
        module: &module,
        entry_point: Some("probe"),
        compilation_options: Default::default(),
        cache: None,
    });
    let init = |contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("occluded probe"),
            contents,
            usage,
        })
    };
    let uniform = init(bytemuck::bytes_of(&view), wgpu::BufferUsages::UNIFORM);
    let input = init(bytemuck::cast_slice(&probes), wgpu::BufferUsages::STORAGE);
    let output = init(
        &vec![0u8; PROBES * 4],
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let [input_entry, output_entry] = kernel_io_entries(&input, &output);
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("occluded probe"),
        layout: &layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 13,
                resource: wgpu::BindingResource::TextureView(&views[0]),
            },
            wgpu::BindGroupEntry {
                binding: 14,
                resource: wgpu::BindingResource::TextureView(&views[1]),
            },
            input_entry,
            output_entry,
        ],
    });
    dispatch(&gpu, &pipeline, &[&group], (PROBES as u32).div_ceil(64));
    let hidden: Vec<u32> =
        bytemuck::pod_collect_to_vec(&read_buffer(&gpu, &output, (PROBES * 4) as u64));

    // The rule, on the CPU: the texels of level 0 the box's rectangle
    // covers, and the box's nearest depth.
    let (w0, h0) = (SIZE0.0 as f32, SIZE0.1 as f32);
    let mut wrong = Vec::new();
    let mut occluded = 0;
    for (i, [centre, half]) in probes.iter().enumerate() {
        if hidden[i] == 0 {
            continue;
        }
        occluded += 1;
        let (mut lo, mut hi, mut near) = (
            glam::Vec2::splat(f32::MAX),
            glam::Vec2::splat(f32::MIN),
            1f32,
        );
        for k in 0..8 {
            let side = Vec3::new(
                if k & 1 != 0 { 1.0 } else { -1.0 },
                if k & 2 != 0 { 1.0 } else { -1.0 },
                if k & 4 != 0 { 1.0 } else { -1.0 },
            );
            let p = clip_from_world * (centre.truncate() + half.truncate() * side).extend(1.0);
            let ndc = p.truncate() / p.w;
            let uv = glam::Vec2::new(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
            lo = lo.min(uv);
            hi = hi.max(uv);
            near = near.min(ndc.z);
        }
        let x0 = (lo.x * w0).floor().clamp(0.0, w0 - 1.0) as u32;
        let x1 = (hi.x * w0).floor().clamp(0.0, w0 - 1.0) as u32;
        let y0 = (lo.y * h0).floor().clamp(0.0, h0 - 1.0) as u32;
        let y1 = (hi.y * h0).floor().clamp(0.0, h0 - 1.0) as u32;
        let farthest = (y0..=y1)
            .flat_map(|y| (x0..=x1).map(move |x| (x, y)))
            .map(|(x, y)| (pyramid[0][(y * SIZE0.0 + x) as usize], x, y))
            .fold((0f32, 0, 0), |a, b| if b.0 > a.0 { b } else { a });
        if farthest.0 >= near {
            wrong.push((i, near, farthest));
        }
    }
    println!(
        "occluded(): {occluded} of {PROBES} random boxes called occluded, {} of them wrongly",
        wrong.len()
    );
    assert!(
        occluded > PROBES / 100,
        "the test culls something: {occluded} of {PROBES}"
    );
    assert!(
        wrong.is_empty(),
        "{} boxes called occluded show through a texel at least as far as their nearest \
         depth; the first (box, its near depth, (texel's depth, x, y)): {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
}
