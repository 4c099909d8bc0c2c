//! GPU time per pass with timestamp queries, where the device has them
//! ([`PassTimer`]): each pass of a frame the renderer records (the
//! GPU-driven cull of each view, the shadow pass, the crowd pass — or,
//! with occlusion culling, its early pass, the depth pyramid, the late cull
//! and the late pass) takes a named span of one query set, written at the
//! pass's start and end. The spans are resolved together at the end of the
//! frame's recording, copied to a readback buffer, mapped after submit and
//! read on a later frame without stalling ([`PassTimer::latest`]) or at
//! once ([`PassTimer::wait`], for benchmarks). While one readback is in
//! flight, later frames are not timed.
//!
//! A frame's GPU time ([`PassTimes::frame`]) runs from the start of its
//! first drawing pass to the end of its last one (the compute passes
//! between them included); the culls recorded while the frame is prepared
//! are reported apart.

use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Most spans one frame can time (a span per crowd's cull; past this,
/// passes go untimed).
pub const MAX_SPANS: u32 = 64;

/// Whether a span is part of the frame's drawing (between its first and
/// last drawing pass) or of the work prepared before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// Recorded with the frame's passes ([`PassTimes::frame`] spans them).
    Frame,
    /// Recorded while the frame is prepared (a view's cull).
    Prepared,
}

/// The GPU times of one frame's passes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassTimes {
    /// Per pass name, in the order first met: its total milliseconds (a
    /// name timed several times in the frame, such as one cull per crowd,
    /// is summed).
    pub passes: Vec<(&'static str, f64)>,
    /// From the start of the first drawing pass to the end of the last.
    pub frame: Option<Duration>,
}

impl PassTimes {
    /// Milliseconds of the passes called `name` (`None` if none was timed).
    pub fn get(&self, name: &str) -> Option<f64> {
        self.passes.iter().find(|(n, _)| *n == name).map(|p| p.1)
    }
}

#[derive(Default)]
struct State {
    /// Spans taken this frame.
    spans: Vec<(&'static str, SpanKind)>,
    /// Spans may be taken (the readback is free).
    recording: bool,
    /// Resolved into an encoder, not yet mapped.
    encoded: bool,
    mapping: bool,
    ready: bool,
    /// Spans of the frame being mapped.
    mapped: Vec<(&'static str, SpanKind)>,
    last: Option<PassTimes>,
}

/// Named GPU time spans of a frame's passes; see the module docs.
pub struct PassTimer {
    query_set: wgpu::QuerySet,
    /// The device can write timestamps inside a pass (the crowd pass's
    /// meshes and impostors timed apart).
    inside: bool,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f32,
    state: Arc<Mutex<State>>,
}

impl PassTimer {
    /// A timer, or `None` where the device has no timestamp queries.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let bytes = MAX_SPANS as u64 * 2 * 8;
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        Some(Self {
            query_set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("throng pass timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: MAX_SPANS * 2,
            }),
            resolve: buffer(
                "throng pass timestamps resolve",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: buffer(
                "throng pass timestamps readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            period_ns: queue.get_timestamp_period(),
            state: Arc::default(),
            inside: device
                .features()
                .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES),
        })
    }

    /// Starts a frame: its spans are timed if the readback of an earlier
    /// frame is not in flight (spans taken by a frame never resolved are
    /// dropped).
    pub fn start(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.spans.clear();
            s.recording = !s.mapping && !s.encoded;
        }
    }

    /// Takes a span for a pass called `name`: its index, or `None` if the
    /// frame is not timed or has no span left.
    pub fn span(&self, name: &'static str, kind: SpanKind) -> Option<u32> {
        let mut s = self.state.lock().ok()?;
        if !s.recording || s.spans.len() as u32 >= MAX_SPANS {
            return None;
        }
        s.spans.push((name, kind));
        Some(s.spans.len() as u32 - 1)
    }

    /// True if spans can begin and end inside a pass ([`Self::write_inside`]).
    pub fn inside_passes(&self) -> bool {
        self.inside
    }

    /// Writes span `k`'s beginning (`end` false) or end inside `pass`
    /// (only where [`Self::inside_passes`]).
    pub fn write_inside(&self, pass: &mut wgpu::RenderPass<'_>, k: u32, end: bool) {
        if self.inside {
            pass.write_timestamp(&self.query_set, 2 * k + end as u32);
        }
    }

    /// A render pass's writes for span `k`.
    pub fn render_writes(&self, k: u32) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(2 * k),
            end_of_pass_write_index: Some(2 * k + 1),
        }
    }

    /// A compute pass's writes for span `k`.
    pub fn compute_writes(&self, k: u32) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(2 * k),
            end_of_pass_write_index: Some(2 * k + 1),
        }
    }

    /// Resolves the frame's spans into `encoder` (after its last timed
    /// pass) and copies them for reading; call [`Self::after_submit`] once
    /// it is submitted. Nothing if no span was taken.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        let Ok(mut s) = self.state.lock() else { return };
        if !s.recording || s.spans.is_empty() {
            return;
        }
        let queries = 2 * s.spans.len() as u32;
        encoder.resolve_query_set(&self.query_set, 0..queries, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, queries as u64 * 8);
        s.mapped = std::mem::take(&mut s.spans);
        s.recording = false;
        s.encoded = true;
    }

    /// Starts mapping the resolved spans (call after submitting the encoder
    /// [`Self::resolve`] wrote into).
    pub fn after_submit(&self) {
        let Ok(mut s) = self.state.lock() else { return };
        if !s.encoded || s.mapping {
            return;
        }
        s.encoded = false;
        s.mapping = true;
        let state = self.state.clone();
        self.readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                if let Ok(mut s) = state.lock() {
                    if r.is_ok() {
                        s.ready = true;
                    } else {
                        s.mapping = false;
                    }
                }
            });
    }

    fn collect(&self) -> Option<PassTimes> {
        let mut s = self.state.lock().ok()?;
        if s.ready {
            let n = s.mapped.len();
            if let Ok(view) = self.readback.slice(..).get_mapped_range() {
                let t: &[u64] = bytemuck::cast_slice(&view[..n * 16]);
                let ms = |a: u64, b: u64| b.saturating_sub(a) as f64 * self.period_ns as f64 / 1e6;
                let mut times = PassTimes::default();
                let (mut first, mut last) = (u64::MAX, 0);
                for (k, &(name, kind)) in s.mapped.iter().enumerate() {
                    let (a, b) = (t[2 * k], t[2 * k + 1]);
                    match times.passes.iter_mut().find(|(n, _)| *n == name) {
                        Some(p) => p.1 += ms(a, b),
                        None => times.passes.push((name, ms(a, b))),
                    }
                    if kind == SpanKind::Frame {
                        first = first.min(a);
                        last = last.max(b);
                    }
                }
                times.frame =
                    (first <= last).then(|| Duration::from_nanos((ms(first, last) * 1e6) as u64));
                drop(view);
                s.last = Some(times);
            }
            self.readback.unmap();
            s.ready = false;
            s.mapping = false;
        }
        s.last.clone()
    }

    /// The latest frame's times read back, without waiting.
    pub fn latest(&self, device: &wgpu::Device) -> Option<PassTimes> {
        let _ = device.poll(wgpu::PollType::Poll);
        self.collect()
    }

    /// Waits for the GPU and returns the times of the last frame resolved.
    pub fn wait(&self, device: &wgpu::Device) -> Option<PassTimes> {
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        self.collect()
    }
}
