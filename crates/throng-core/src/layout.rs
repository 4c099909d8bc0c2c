//! Bake layout: frame counts and times, and the texel addressing of palette
//! matrices in the bone texture (docs/design/layout.md#texel-packing).
//!
//! ```text
//! i = (g * bone_count + b) * 3 + r          // global frame g, bone b, row r
//! layer = i / (W*W);  y = (i % (W*W)) / W;  x = i % W
//! ```
//! The WGSL shader computes the same address with integer arithmetic.

use crate::limits::TEXELS_PER_MATRIX;

/// Frames baked for a clip of `duration` seconds at `fps`:
/// `max(2, round(D·F) + 1)`, or 1 for a zero-length clip.
pub fn clip_frame_count(duration: f32, fps: f32) -> u32 {
    if duration > 0.0 {
        ((duration * fps).round() as u32).saturating_add(1).max(2)
    } else {
        1
    }
}

/// Clip time of frame `k` of `n` spanning `duration`: uniform spacing, first
/// frame at 0, last at exactly `duration`.
pub fn frame_time(k: u32, n: u32, duration: f32) -> f32 {
    if n <= 1 {
        0.0
    } else if k + 1 == n {
        duration
    } else {
        k as f32 * duration / (n - 1) as f32
    }
}

/// Two baked frames and the interpolation weight between them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FramePair {
    /// Global index of the earlier frame.
    pub frame0: u32,
    /// Global index of the later frame.
    pub frame1: u32,
    /// Weight of `frame1`, in `[0, 1]`.
    pub t: f32,
}

impl FramePair {
    /// A single frame (no interpolation).
    pub fn single(frame: u32) -> Self {
        Self {
            frame0: frame,
            frame1: frame,
            t: 0.0,
        }
    }
}

/// The mapping from a clip's time to its baked frames, precomputed so the
/// runtime pays one multiply per instance: `x = clamp(t, 0, D) · (n−1)/D`,
/// `frame0 = first + min(⌊x⌋, n−2)`, `weight = x − ⌊x⌋`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameMap {
    /// First global frame.
    pub first_frame: u32,
    /// Frames in the clip.
    pub frame_count: u32,
    /// Duration in seconds.
    pub duration: f32,
    /// `(n − 1) / D`, or 0 for a single-frame clip.
    pub frames_per_second: f32,
}

impl FrameMap {
    /// The map of a clip.
    pub fn new(first_frame: u32, frame_count: u32, duration: f32) -> Self {
        let frames_per_second = if frame_count > 1 && duration > 0.0 {
            (frame_count - 1) as f32 / duration
        } else {
            0.0
        };
        Self {
            first_frame,
            frame_count,
            duration,
            frames_per_second,
        }
    }

    /// Baked frames and weight at clip time `time` (clamped to the clip).
    #[inline(always)]
    pub fn frames_at(&self, time: f32) -> FramePair {
        if self.frames_per_second == 0.0 {
            return FramePair::single(self.first_frame);
        }
        let last = (self.frame_count - 1) as f32;
        let x = (time.clamp(0.0, self.duration) * self.frames_per_second).clamp(0.0, last);
        let f0 = (x as u32).min(self.frame_count - 2);
        FramePair {
            frame0: self.first_frame + f0,
            frame1: self.first_frame + f0 + 1,
            t: (x - f0 as f32).clamp(0.0, 1.0),
        }
    }
}

/// Maps clip time to baked frames ([`FrameMap::frames_at`]). `first_frame` is
/// the clip's first global frame.
pub fn clip_frames(first_frame: u32, frame_count: u32, duration: f32, time: f32) -> FramePair {
    FrameMap::new(first_frame, frame_count, duration).frames_at(time)
}

/// Linear texel index of row `row` of bone `bone` at global frame `frame`.
#[inline]
pub fn texel_index(frame: u32, bone: u32, row: u32, bone_count: u32) -> u64 {
    (frame as u64 * bone_count as u64 + bone as u64) * TEXELS_PER_MATRIX as u64 + row as u64
}

/// Position of a texel in the `W×W×layers` array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexelAddress {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// Array layer.
    pub layer: u32,
}

/// Address of linear texel `index` in layers of side `width`.
#[inline]
pub fn texel_address(index: u64, width: u32) -> TexelAddress {
    let w = width as u64;
    let per_layer = w * w;
    let in_layer = index % per_layer;
    TexelAddress {
        x: (index % w) as u32,
        y: (in_layer / w) as u32,
        layer: (index / per_layer) as u32,
    }
}

/// Size of the bone texture array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureLayout {
    /// Layer side `W`.
    pub width: u32,
    /// Number of layers.
    pub layers: u32,
}

impl TextureLayout {
    /// Texels one layer holds.
    pub fn texels_per_layer(&self) -> u64 {
        self.width as u64 * self.width as u64
    }

    /// Texels all layers hold.
    pub fn capacity(&self) -> u64 {
        self.texels_per_layer() * self.layers as u64
    }

    /// Picks the layout for `texel_count` texels: the smallest `W` whose single
    /// layer holds everything if `W ≤ max_layer_size`, else layers of
    /// `max_layer_size`, as few as hold everything. Packing is tight: only the
    /// last layer may be partly empty.
    pub fn for_texels(texel_count: u64, max_layer_size: u32) -> Self {
        let max = max_layer_size.max(1) as u64;
        let count = texel_count.max(1);
        if count <= max * max {
            let mut w = (count as f64).sqrt().ceil() as u64;
            while w * w < count {
                w += 1;
            }
            while w > 1 && (w - 1) * (w - 1) >= count {
                w -= 1;
            }
            Self {
                width: w as u32,
                layers: 1,
            }
        } else {
            Self {
                width: max as u32,
                layers: count.div_ceil(max * max) as u32,
            }
        }
    }

    /// True if `texel_count` fits, no layer is wholly unused, and a single
    /// layer has the smallest side that holds everything.
    pub fn is_tight_for(&self, texel_count: u64) -> bool {
        let w = self.width as u64;
        self.width >= 1
            && self.layers >= 1
            && texel_count <= self.capacity()
            && texel_count > self.texels_per_layer() * (self.layers as u64 - 1)
            && (self.layers > 1 || w == 1 || (w - 1) * (w - 1) < texel_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_counts_follow_the_design_formula() {
        assert_eq!(clip_frame_count(0.0, 30.0), 1);
        assert_eq!(clip_frame_count(0.001, 30.0), 2); // max(2, …)
        assert_eq!(clip_frame_count(1.0, 30.0), 31);
        assert_eq!(clip_frame_count(0.71, 30.0), 22); // round(21.3) + 1
        assert_eq!(frame_time(21, 22, 0.71), 0.71); // last frame at exactly D
        assert_eq!(frame_time(0, 22, 0.71), 0.0);
    }

    #[test]
    fn clip_frames_interpolate_and_clamp() {
        // 11 frames over 1 s starting at global frame 5.
        let p = clip_frames(5, 11, 1.0, 0.25);
        assert_eq!((p.frame0, p.frame1), (7, 8));
        assert!((p.t - 0.5).abs() < 1e-5);
        let end = clip_frames(5, 11, 1.0, 1.0);
        assert_eq!((end.frame0, end.frame1), (14, 15));
        assert!((end.t - 1.0).abs() < 1e-6);
        let before = clip_frames(5, 11, 1.0, -3.0);
        assert_eq!((before.frame0, before.t), (5, 0.0));
        assert_eq!(clip_frames(9, 1, 0.0, 2.0), FramePair::single(9));
    }

    #[test]
    fn addressing_matches_the_design_formula() {
        let w = 7;
        for i in [0u64, 6, 7, 48, 49, 50, 1000] {
            let a = texel_address(i, w);
            assert_eq!(
                a.layer as u64 * 49 + a.y as u64 * 7 + a.x as u64,
                i,
                "address {a:?} of texel {i}"
            );
            assert!(a.x < w && a.y < w);
        }
        assert_eq!(texel_index(2, 1, 2, 10), (2 * 10 + 1) * 3 + 2);
    }

    /// Shorthand for a layout literal.
    fn layout(width: u32, layers: u32) -> TextureLayout {
        TextureLayout { width, layers }
    }

    #[test]
    fn layout_is_smallest_square_or_tight_layers() {
        let big_count = 1024 * 1024 * 2 + 1;
        // (texel count, max layer size, expected width, expected layers)
        for (texels, max_layer_size, width, layers) in [
            (1, 1024, 1, 1),
            (10, 1024, 4, 1),
            (16, 1024, 4, 1),
            (17, 1024, 5, 1),
            (big_count, 1024, 1024, 3),
            (100, 8, 8, 2),
        ] {
            assert_eq!(
                TextureLayout::for_texels(texels, max_layer_size),
                layout(width, layers),
                "{texels} texels, layers of at most {max_layer_size}"
            );
        }
        let big = layout(1024, 3);
        assert!(big.is_tight_for(big_count));
        assert!(!big.is_tight_for(big_count - 1));
        assert!(layout(5, 1).is_tight_for(17));
        assert!(
            !layout(6, 1).is_tight_for(17),
            "a single layer must be the smallest square"
        );
    }
}
