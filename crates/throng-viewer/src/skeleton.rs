//! The skeleton overlay: every palette bone of the instances nearest the
//! camera drawn as a line from its parent's joint to its own (as three.js's
//! `SkeletonHelper` does), over everything else.
//!
//! Joint positions come from the same blended palette the vertex shader
//! uses ([`Crowd::bone_world_transform`]: the instance's world matrix times
//! the interpolated, cross-faded palette matrix times the bone's bind
//! matrix), so the bones move exactly with the skin.

use glam::{Mat4, Vec3};
use throng_core::limits::REST_FRAME;
use throng_crowd::camera::Frustum;
use throng_crowd::crowd::{Crowd, InstanceId};
use throng_render::PassPipeline;
use throng_render::bind_groups::entries;

/// The WGSL source.
pub const SHADER: &str = include_str!("../shaders/lines.wgsl");

/// How many instances (nearest the eye, in view) get a skeleton.
pub const NEAREST: usize = 20;

/// Colour at a bone's parent joint (sRGB bytes, RGBA).
pub const PARENT_COLOR: [u8; 4] = [40, 110, 255, 255];

/// Colour at a bone's own joint.
pub const CHILD_COLOR: [u8; 4] = [90, 255, 120, 255];

/// A line-list vertex (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LineVertex {
    /// World position.
    pub position: [f32; 3],
    /// Colour, read as `Unorm8x4` (linear; an sRGB target encodes it).
    pub color: [u8; 4],
}

/// Up to `max` live instances whose animated bounds are in `frustum`,
/// nearest `eye` first, into `out`.
pub fn nearest_instances(
    crowd: &Crowd,
    eye: Vec3,
    frustum: &Frustum,
    max: usize,
    out: &mut Vec<InstanceId>,
) {
    out.clear();
    let mut found: Vec<(f32, InstanceId)> = crowd
        .ids()
        .filter_map(|id| {
            let state = crowd.state(id).ok()?;
            let model = crowd.model(state.model).ok()?;
            let local = match state.current {
                Some((clip, _)) => model.clips[clip].bounds,
                None => model.frame_bounds[REST_FRAME as usize],
            };
            let world = local.transformed(&state.world_from_model);
            frustum
                .intersects_aabb(&world)
                .then(|| (world.center().distance_squared(eye), id))
        })
        .collect();
    if found.len() > max {
        found.select_nth_unstable_by(max, |a, b| a.0.total_cmp(&b.0));
        found.truncate(max);
    }
    found.sort_by(|a, b| a.0.total_cmp(&b.0));
    out.extend(found.into_iter().map(|(_, id)| id));
}

/// World positions of every palette bone's joint for instance `id`
/// (`None` if it does not exist).
pub fn joint_positions(crowd: &Crowd, id: InstanceId) -> Option<Vec<Vec3>> {
    let state = crowd.state(id).ok()?;
    let model = crowd.model(state.model).ok()?;
    (0..model.bones.len())
        .map(|b| {
            crowd
                .bone_world_transform(id, b)
                .ok()
                .map(|m| m.w_axis.truncate())
        })
        .collect()
}

/// Appends the bones of `ids` to `out` as line-list vertex pairs
/// (parent joint, child joint); roots draw nothing.
pub fn skeleton_lines(crowd: &Crowd, ids: &[InstanceId], out: &mut Vec<LineVertex>) {
    for &id in ids {
        let (Some(joints), Ok(state)) = (joint_positions(crowd, id), crowd.state(id)) else {
            continue;
        };
        let Ok(model) = crowd.model(state.model) else {
            continue;
        };
        for (b, bone) in model.bones.iter().enumerate() {
            if let Some(p) = bone.parent {
                out.push(LineVertex {
                    position: joints[p as usize].to_array(),
                    color: PARENT_COLOR,
                });
                out.push(LineVertex {
                    position: joints[b].to_array(),
                    color: CHILD_COLOR,
                });
            }
        }
    }
}

/// Mirrors `Lines` in `shaders/lines.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
struct LineUniforms {
    clip_from_world: [[f32; 4]; 4],
}

/// A line-list pipeline drawing over everything (no depth test), inside
/// the crowd's render pass.
pub struct LinePass {
    pipeline: wgpu::RenderPipeline,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    vertices: Option<wgpu::Buffer>,
    count: u32,
}

impl LinePass {
    /// Builds the pipeline for the crowd pass's targets (`format`,
    /// `sample_count`, [`DEPTH_FORMAT`](throng_render::DEPTH_FORMAT)).
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, sample_count: u32) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("viewer lines shader"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let uniforms = size_of::<LineUniforms>();
        let layout = entries::create(
            device,
            "viewer lines bind group layout",
            &[entries::uniform(
                0,
                wgpu::ShaderStages::VERTEX,
                uniforms,
                false,
            )],
        );
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("viewer lines pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4];
        let buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<LineVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &attributes,
        })];
        // The pass has a depth attachment, so the pipeline names its format;
        // it neither tests nor writes it.
        let pipeline = PassPipeline {
            buffers: &buffers,
            topology: wgpu::PrimitiveTopology::LineList,
            depth_write: false,
            depth_compare: wgpu::CompareFunction::Always,
            ..PassPipeline::opaque(
                "viewer lines pipeline",
                &pipeline_layout,
                &module,
                format,
                sample_count,
            )
        }
        .create(device);
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewer lines uniforms"),
            size: std::mem::size_of::<LineUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("viewer lines bind group"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniforms.as_entire_binding(),
            }],
        });
        Self {
            pipeline,
            uniforms,
            bind_group,
            vertices: None,
            count: 0,
        }
    }

    /// Uploads this frame's lines (an empty slice draws nothing).
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        clip_from_world: &Mat4,
        lines: &[LineVertex],
    ) {
        self.count = lines.len() as u32;
        if lines.is_empty() {
            return;
        }
        let u = LineUniforms {
            clip_from_world: clip_from_world.to_cols_array_2d(),
        };
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&u));
        let bytes: &[u8] = bytemuck::cast_slice(lines);
        if self
            .vertices
            .as_ref()
            .is_none_or(|b| b.size() < bytes.len() as u64)
        {
            self.vertices = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("viewer line vertices"),
                size: (bytes.len() as u64).next_power_of_two(),
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(b) = &self.vertices {
            queue.write_buffer(b, 0, bytes);
        }
    }

    /// Draws the prepared lines into the crowd's pass.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        let Some(vertices) = &self.vertices else {
            return;
        };
        if self.count == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_vertex_buffer(0, vertices.slice(..));
        pass.draw(0..self.count, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_model::fox;
    use throng_crowd::crowd::Spawn;

    #[test]
    fn shader_parses_and_validates() {
        throng_tests::wgsl::validate("lines.wgsl", SHADER, naga::valid::Capabilities::empty());
        assert_eq!(std::mem::size_of::<LineVertex>(), 16);
    }

    #[test]
    fn rest_pose_joints_are_the_rest_globals_moved_by_the_instance() {
        let handle = fox();
        let model = handle.model();
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&handle);
        let world = Mat4::from_translation(Vec3::new(500.0, 0.0, -200.0));
        let id = crowd
            .spawn(
                m,
                Spawn {
                    transform: world,
                    clip: None,
                    ..Spawn::default()
                },
            )
            .unwrap();
        let joints = joint_positions(&crowd, id).unwrap();
        assert_eq!(joints.len(), model.bones.len());
        let tolerance = model.bounding_radius * 1e-4;
        for (b, bone) in model.bones.iter().enumerate() {
            let expected = (world * bone.rest_global).w_axis.truncate();
            assert!(
                joints[b].distance(expected) < tolerance,
                "bone {b} {:?}: {} vs {expected}",
                bone.name,
                joints[b]
            );
        }
        let mut lines = Vec::new();
        skeleton_lines(&crowd, &[id], &mut lines);
        let with_parent = model.bones.iter().filter(|b| b.parent.is_some()).count();
        assert_eq!(lines.len(), 2 * with_parent);
        // Each pair runs from the parent's joint to the child's.
        let (b, bone) = model
            .bones
            .iter()
            .enumerate()
            .find(|(_, b)| b.parent.is_some())
            .unwrap();
        let p = bone.parent.unwrap() as usize;
        let pair = lines
            .chunks(2)
            .find(|l| Vec3::from(l[1].position).distance(joints[b]) < tolerance)
            .expect("the bone's line");
        assert!(Vec3::from(pair[0].position).distance(joints[p]) < tolerance);
    }

    #[test]
    fn nearest_instances_are_sorted_limited_and_in_view() {
        let handle = fox();
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&handle);
        // A row along -Z, in front of a camera at the origin looking down -Z,
        // and one behind it.
        let mut ids = Vec::new();
        for i in 0..30 {
            let z = -300.0 - 250.0 * i as f32;
            ids.push(
                crowd
                    .spawn(
                        m,
                        Spawn {
                            transform: Mat4::from_translation(Vec3::new(0.0, 0.0, z)),
                            clip: Some(0),
                            ..Spawn::default()
                        },
                    )
                    .unwrap(),
            );
        }
        let behind = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_translation(Vec3::new(0.0, 0.0, 2000.0)),
                    ..Spawn::default()
                },
            )
            .unwrap();
        let eye = Vec3::new(0.0, 40.0, 0.0);
        let camera = throng_crowd::camera::Camera::look_at(
            eye,
            Vec3::new(0.0, 40.0, -1.0),
            Vec3::Y,
            1.0,
            1.0,
            1.0,
            1e5,
        );
        let mut out = Vec::new();
        nearest_instances(&crowd, eye, &camera.frustum(), NEAREST, &mut out);
        assert_eq!(out, ids[..NEAREST].to_vec());
        assert!(!out.contains(&behind));
    }
}
