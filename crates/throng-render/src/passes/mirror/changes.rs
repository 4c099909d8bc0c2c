//! What a sync writes: the changed slots of a stream and the runs they
//! make (`Slots`), and where the bytes go — the queue for a full upload,
//! the staging belt for changes (`Upload`), tables written whole
//! (`write_tables`), and what a sync uploaded ([`SyncStats`]).

use throng_crowd::crowd::Change;
use wgpu::util::StagingBelt;

use crate::base::error::RenderError;
use crate::device::buffers::Grown;

/// Runs of changed slots a sync writes one by one, per stream (states,
/// transforms); more go through the scattered upload (one buffer write and
/// one dispatch per stream).
const MAX_DIRECT_RUNS: usize = 16;

/// Changed slots less than this far apart are written as one run (the
/// unchanged slots between them are rewritten with what they hold).
const RUN_GAP: u32 = 8;

/// The changed slots of one stream, sorted and without repeats, and the
/// runs they make.
#[derive(Default)]
pub(super) struct Slots {
    pub(super) slots: Vec<u32>,
    pub(super) runs: Vec<(u32, u32)>,
    /// One bit per slot, for sorting many changes in linear time.
    bits: Vec<u64>,
}

impl Slots {
    pub(super) fn clear(&mut self) {
        self.slots.clear();
        self.runs.clear();
    }

    /// Takes the slots below `len` of the log entries that `wrote` says
    /// wrote this stream, sorted without repeats, and finds their runs.
    /// Slots logged in rising order (a caller walking its instances in
    /// order) are taken as they are; otherwise many changes (more than one
    /// slot in 16 of `len`) go through a bitset, in time linear in `len /
    /// 64` plus the changes, and fewer are sorted.
    pub(super) fn collect(&mut self, changes: &[Change], len: usize, wrote: fn(Change) -> bool) {
        self.clear();
        self.slots.extend(
            changes
                .iter()
                .filter(|&&c| wrote(c) && c.slot() < len)
                .map(|c| c.slot() as u32),
        );
        if self.slots.is_sorted_by(|a, b| a < b) {
            // Already sorted and unique.
        } else if self.slots.len() > len / 16 {
            self.bits.clear();
            self.bits.resize(len.div_ceil(64), 0);
            for &d in &self.slots {
                self.bits[d as usize / 64] |= 1 << (d % 64);
            }
            self.slots.clear();
            for (w, &word) in self.bits.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    self.slots.push(w as u32 * 64 + word.trailing_zeros());
                    word &= word - 1;
                }
            }
        } else {
            self.slots.sort_unstable();
            self.slots.dedup();
        }
        let mut i = 0;
        while i < self.slots.len() {
            let first = self.slots[i];
            let mut last = first;
            while i < self.slots.len() && self.slots[i] <= last + RUN_GAP {
                last = self.slots[i];
                i += 1;
            }
            self.runs.push((first, last));
        }
    }

    pub(super) fn all(&mut self, len: usize) {
        self.clear();
        self.slots.extend(0..len as u32);
        if len > 0 {
            self.runs.push((0, len as u32 - 1));
        }
    }

    pub(super) fn direct(&self) -> bool {
        self.runs.len() <= MAX_DIRECT_RUNS
    }
}

/// Where a sync's bytes go: the queue's own staging for a full upload (a
/// one-off, not worth keeping mapped memory for), the mirror's staging belt
/// for changes.
pub(super) enum Upload<'a> {
    Queue(&'a wgpu::Queue),
    Belt(&'a mut StagingBelt, &'a mut wgpu::CommandEncoder),
}

impl Upload<'_> {
    /// Writes `items` (`count` of them, each `N` bytes: `T`'s size) into
    /// `buffer` at `offset`, straight into staging memory. Returns the bytes.
    pub(super) fn items<T: bytemuck::Pod, const N: usize>(
        &mut self,
        buffer: &wgpu::Buffer,
        offset: u64,
        count: usize,
        items: impl Iterator<Item = T>,
    ) -> u64 {
        const { assert!(N.is_multiple_of(4)) };
        assert_eq!(std::mem::size_of::<T>(), N, "N is the item's size");
        let Some(size) = wgpu::BufferSize::new((count * N) as u64) else {
            return 0;
        };
        let fill = |mut view: wgpu::WriteOnly<'_, [u8]>| {
            let (chunks, _) = view.slice(..).into_chunks::<N>();
            chunks.write_iter(items.map(|item| bytemuck::cast::<T, [u8; N]>(item)));
        };
        match self {
            Upload::Queue(queue) => {
                if let Some(mut view) = queue.write_buffer_with(buffer, offset, size) {
                    fill(view.slice(..));
                }
            }
            Upload::Belt(belt, encoder) => {
                let mut view = belt.write_buffer(encoder, buffer, offset, size);
                fill(view.slice(..));
            }
        }
        size.get()
    }

    /// Packs one update per slot of `slots` (`update` makes it) into
    /// `buffer`, grown to fit, for the scattered upload to place; counts the
    /// bytes and the write in `stats`. Returns the number of updates.
    pub(super) fn updates<T: bytemuck::Pod, const N: usize>(
        &mut self,
        device: &wgpu::Device,
        buffer: &mut Grown,
        slots: &[u32],
        stats: &mut SyncStats,
        update: impl Fn(u32) -> T,
    ) -> Result<u32, RenderError> {
        buffer.reserve(device, (slots.len() * N) as u64)?;
        let it = slots.iter().map(|&d| update(d));
        stats.bytes += self.items::<T, N>(&buffer.buffer, 0, slots.len(), it);
        stats.writes += 1;
        Ok(slots.len() as u32)
    }

    /// Writes each run of `slots` in place, straight from `all` (the
    /// crowd's own contiguous stream), one write a run.
    pub(super) fn runs<T: bytemuck::Pod>(
        &mut self,
        buffer: &wgpu::Buffer,
        slots: &Slots,
        all: &[T],
        stats: &mut SyncStats,
    ) {
        let size = std::mem::size_of::<T>() as u64;
        for &(first, last) in &slots.runs {
            let run = &all[first as usize..=last as usize];
            stats.bytes += self.bytes(buffer, first as u64 * size, bytemuck::cast_slice(run));
            stats.writes += 1;
        }
    }

    /// Writes `bytes` into `buffer` at `offset`. Returns the bytes.
    pub(super) fn bytes(&mut self, buffer: &wgpu::Buffer, offset: u64, bytes: &[u8]) -> u64 {
        let Some(size) = wgpu::BufferSize::new(bytes.len() as u64) else {
            return 0;
        };
        match self {
            Upload::Queue(queue) => queue.write_buffer(buffer, offset, bytes),
            Upload::Belt(belt, encoder) => belt
                .write_buffer(encoder, buffer, offset, size)
                .copy_from_slice(bytes),
        }
        size.get()
    }
}

/// What one [`CrowdMirror::sync`](super::CrowdMirror::sync) uploaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncStats {
    /// Instance states written (changed ones; more slots may be rewritten
    /// where runs join).
    pub states: u64,
    /// Instance transforms written (likewise).
    pub transforms: u64,
    /// Instance motions written (likewise).
    pub motions: u64,
    /// Bytes written (states, transforms and tables).
    pub bytes: u64,
    /// `write_buffer` calls.
    pub writes: u32,
    /// True if some changes went through a scattered upload.
    pub scattered: bool,
}

/// Writes each table whole through the queue, each buffer grown to fit.
pub(super) fn write_tables<const N: usize>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    stats: &mut SyncStats,
    tables: [(&mut Grown, &[u8]); N],
) -> Result<(), RenderError> {
    for (buffer, bytes) in tables {
        buffer.reserve(device, bytes.len() as u64)?;
        if !bytes.is_empty() {
            queue.write_buffer(&buffer.buffer, 0, bytes);
            stats.bytes += bytes.len() as u64;
            stats.writes += 1;
        }
    }
    Ok(())
}
