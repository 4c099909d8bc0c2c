//! GPU frame timing with timestamp queries, where the device has them.
//!
//! A timed span (the crowd pass; the shadow and crowd passes; the
//! GPU-driven path's camera cull passes) writes a timestamp at its start
//! and end; the pair is
//! resolved and copied to a small readback buffer, mapped after submit, and
//! read on a later frame without stalling ([`GpuTimer::latest`]) or at once
//! ([`GpuTimer::wait`], for benchmarks). While one readback is in flight,
//! later frames are not timed.

use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Default)]
struct Shared {
    /// A resolve was encoded and not yet mapped.
    encoded: bool,
    /// A map is in flight.
    mapping: bool,
    /// The map finished; the range can be read.
    ready: bool,
    /// Latest measurement.
    last: Option<Duration>,
}

/// Times one span of passes per frame on the GPU.
pub struct GpuTimer {
    query_set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f32,
    shared: Arc<Mutex<Shared>>,
}

impl GpuTimer {
    /// A timer, or `None` where the device lacks `TIMESTAMP_QUERY`.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let query_set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("throng pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        Some(Self {
            query_set,
            resolve: buffer(
                "throng timestamp resolve",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: buffer(
                "throng timestamp readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            period_ns: queue.get_timestamp_period(),
            shared: Arc::default(),
        })
    }

    /// Timestamp writes for this frame's pass, or `None` if a readback is
    /// still in flight.
    pub fn pass_writes(&self) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        let s = self.shared.lock().ok()?;
        (!s.mapping && !s.encoded).then_some(wgpu::RenderPassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        })
    }

    /// Timestamp writes spanning two passes: the start of the first and the
    /// end of the second, or `None` if a readback is still in flight.
    pub fn span_writes(
        &self,
    ) -> Option<(
        wgpu::RenderPassTimestampWrites<'_>,
        wgpu::RenderPassTimestampWrites<'_>,
    )> {
        let s = self.shared.lock().ok()?;
        (!s.mapping && !s.encoded).then_some((
            wgpu::RenderPassTimestampWrites {
                query_set: &self.query_set,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: None,
            },
            wgpu::RenderPassTimestampWrites {
                query_set: &self.query_set,
                beginning_of_pass_write_index: None,
                end_of_pass_write_index: Some(1),
            },
        ))
    }

    /// True if no readback is in flight, so this frame can be timed.
    pub fn idle(&self) -> bool {
        self.shared.lock().is_ok_and(|s| !s.mapping && !s.encoded)
    }

    /// Timestamp writes for a compute pass of a timed span: the span's
    /// start if `begin`, its end if `end` (both for a span of one pass).
    /// Check [`Self::idle`] first, once for the span.
    pub fn compute_writes(&self, begin: bool, end: bool) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: begin.then_some(0),
            end_of_pass_write_index: end.then_some(1),
        }
    }

    /// Resolves the pass's timestamps (call after the pass, if
    /// [`Self::pass_writes`] returned `Some`).
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.query_set, 0..2, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 16);
        if let Ok(mut s) = self.shared.lock() {
            s.encoded = true;
        }
    }

    /// Starts reading back the resolved timestamps; call after the submit
    /// that carried [`Self::resolve`].
    pub fn after_submit(&self) {
        let Ok(mut s) = self.shared.lock() else {
            return;
        };
        if !s.encoded || s.mapping {
            return;
        }
        s.encoded = false;
        s.mapping = true;
        let shared = self.shared.clone();
        self.readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                if let Ok(mut s) = shared.lock() {
                    if r.is_ok() {
                        s.ready = true;
                    } else {
                        s.mapping = false;
                    }
                }
            });
    }

    fn collect(&self) -> Option<Duration> {
        let mut s = self.shared.lock().ok()?;
        if s.ready {
            if let Ok(view) = self.readback.slice(..).get_mapped_range() {
                let t: [u64; 2] = bytemuck::pod_read_unaligned(&view[..16]);
                drop(view);
                let ns = t[1].saturating_sub(t[0]) as f64 * self.period_ns as f64;
                s.last = Some(Duration::from_nanos(ns as u64));
            }
            self.readback.unmap();
            s.ready = false;
            s.mapping = false;
        }
        s.last
    }

    /// The latest completed measurement, without waiting.
    pub fn latest(&self, device: &wgpu::Device) -> Option<Duration> {
        let _ = device.poll(wgpu::PollType::Poll);
        self.collect()
    }

    /// Waits for the GPU and returns the latest measurement.
    pub fn wait(&self, device: &wgpu::Device) -> Option<Duration> {
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        self.collect()
    }
}
