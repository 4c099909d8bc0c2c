//! The viewer's camera controller: orbit, pan, zoom and fly, as pure math on
//! glam types (no window types), turned into a [`Camera`] each frame.
//!
//! # Model
//! One state serves both modes: a `target` point, a viewing direction given
//! by `yaw` and `pitch`, and a `distance`; the eye sits at
//! `target + back · distance`, where `back` points from the target towards
//! the eye. Orbiting turns `back` about the target; flying turns it about the
//! eye and moves both eye and target, so switching modes never moves the
//! view, and leaving fly mode orbits around the point `distance` ahead.
//!
//! Angles: `yaw = 0` looks along −Z; a positive `pitch` puts the eye above
//! the target (looking down). Dragging right or down with either mode turns
//! the view the way the pointer pulls it.

use glam::{Mat3, Vec3};
use throng_core::math::Aabb;
use throng_crowd::camera::Camera;

/// Radians of turn per pixel of drag.
pub const RADIANS_PER_PIXEL: f32 = 0.005;

/// Distance factor per wheel step (zooming in by one step multiplies the
/// distance by this).
pub const ZOOM_PER_STEP: f32 = 0.85;

/// Largest |pitch|, just short of straight up or down.
pub const MAX_PITCH: f32 = 1.5;

/// Fly speed in scene radii per second (Shift: [`FAST_FACTOR`] times).
pub const FLY_RADII_PER_SECOND: f32 = 0.15;

/// Speed factor of the fly camera with Shift held.
pub const FAST_FACTOR: f32 = 4.0;

/// The view direction the crowd is framed from at start (from the target
/// towards the eye): front-right, above.
pub const DEFAULT_VIEW_DIR: Vec3 = Vec3::new(0.3, 0.36, 1.0);

/// Fraction of a crowd's horizontal extent that the start view frames: the
/// rest of a (round) herd spills over the edges, so it fills the view.
pub const CROWD_FILL: f32 = 0.6;

/// `bounds` with its x and z extents scaled by `factor` about its centre
/// (y unchanged).
pub fn shrink_xz(bounds: &Aabb, factor: f32) -> Aabb {
    if bounds.is_empty() {
        return *bounds;
    }
    let c = bounds.center();
    let half = (bounds.max - bounds.min) * 0.5 * Vec3::new(factor, 1.0, factor);
    Aabb {
        min: Vec3::new(c.x - half.x, bounds.min.y, c.z - half.z),
        max: Vec3::new(c.x + half.x, bounds.max.y, c.z + half.z),
    }
}

/// Camera mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Turn about a target point.
    Orbit,
    /// Move the eye freely.
    Fly,
}

/// Orbit and fly camera state. See the module docs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraController {
    /// The point orbited about (in fly mode: `distance` ahead of the eye).
    pub target: Vec3,
    /// Turn about +Y in radians; 0 looks along −Z.
    pub yaw: f32,
    /// Elevation of the eye over the target in radians.
    pub pitch: f32,
    /// Eye-to-target distance.
    pub distance: f32,
    /// Vertical field of view in radians.
    pub fov_y: f32,
    /// Mode.
    pub mode: Mode,
    /// Size of the scene (a bounding radius): sets zoom limits, fly speed
    /// and clip planes.
    pub scene_radius: f32,
}

impl CameraController {
    /// A controller looking at `target` from direction `back` (target
    /// towards eye) at `distance`.
    pub fn new(target: Vec3, back: Vec3, distance: f32, fov_y: f32, scene_radius: f32) -> Self {
        let back = back.try_normalize().unwrap_or(Vec3::Z);
        Self {
            target,
            yaw: back.x.atan2(back.z),
            pitch: back.y.clamp(-1.0, 1.0).asin().clamp(-MAX_PITCH, MAX_PITCH),
            distance: distance.max(1e-3),
            fov_y,
            mode: Mode::Orbit,
            scene_radius: scene_radius.max(1e-3),
        }
    }

    /// A controller that frames `bounds` from [`DEFAULT_VIEW_DIR`] so that
    /// all of it is in view at `aspect`.
    pub fn framing(bounds: &Aabb, fov_y: f32, aspect: f32) -> Self {
        let mut c = Self::new(Vec3::ZERO, DEFAULT_VIEW_DIR, 1.0, fov_y, 1.0);
        c.frame(bounds, aspect);
        c
    }

    /// Frames `bounds` from the current view direction, in orbit mode.
    pub fn frame(&mut self, bounds: &Aabb, aspect: f32) {
        let framed = Camera::framing(bounds, self.back(), self.fov_y, aspect.max(1e-3));
        self.target = bounds.center();
        self.distance = (framed.eye - self.target).length().max(1e-3);
        self.scene_radius = bounds.radius().max(1e-3);
        self.mode = Mode::Orbit;
    }

    /// Unit vector from the target towards the eye.
    pub fn back(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(sy * cp, sp, cy * cp)
    }

    /// Unit viewing direction.
    pub fn forward(&self) -> Vec3 {
        -self.back()
    }

    /// Unit vector to the right of the view, horizontal.
    pub fn right(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        Vec3::new(cy, 0.0, -sy)
    }

    /// Unit up vector of the view (perpendicular to forward and right).
    pub fn up(&self) -> Vec3 {
        self.right().cross(self.forward())
    }

    /// Eye position.
    pub fn eye(&self) -> Vec3 {
        self.target + self.back() * self.distance
    }

    fn turn(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * RADIANS_PER_PIXEL;
        self.pitch = (self.pitch + dy * RADIANS_PER_PIXEL).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Orbits about the target by a drag of `(dx, dy)` pixels.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.turn(dx, dy);
    }

    /// Turns the view about the eye (fly-mode mouse look) by a drag of
    /// `(dx, dy)` pixels.
    pub fn look(&mut self, dx: f32, dy: f32) {
        let eye = self.eye();
        self.turn(dx, dy);
        self.target = eye - self.back() * self.distance;
    }

    /// Moves the target (and eye) in the view plane so that the point at the
    /// target follows a drag of `(dx, dy)` pixels in a viewport
    /// `viewport_height` pixels high.
    pub fn pan(&mut self, dx: f32, dy: f32, viewport_height: f32) {
        let per_pixel = 2.0 * self.distance * (self.fov_y * 0.5).tan() / viewport_height.max(1.0);
        self.target += (-self.right() * dx + self.up() * dy) * per_pixel;
    }

    /// Zooms by `steps` wheel steps (positive: closer), within limits set by
    /// the scene radius. In fly mode the eye moves forward instead.
    pub fn zoom(&mut self, steps: f32) {
        match self.mode {
            Mode::Orbit => {
                let (lo, hi) = self.distance_limits();
                self.distance = (self.distance * ZOOM_PER_STEP.powf(steps)).clamp(lo, hi);
            }
            Mode::Fly => {
                let step = self.scene_radius * FLY_RADII_PER_SECOND * 0.25;
                self.target += self.forward() * step * steps;
            }
        }
    }

    /// Closest and farthest orbit distances.
    pub fn distance_limits(&self) -> (f32, f32) {
        (self.scene_radius * 0.01, self.scene_radius * 20.0)
    }

    /// Moves the fly camera for `dt` seconds: `input.x` right, `input.y`
    /// world up, `input.z` forward (each in −1..1); `fast` multiplies the
    /// speed by [`FAST_FACTOR`].
    pub fn fly(&mut self, input: Vec3, dt: f32, fast: bool) {
        let speed = self.scene_radius * FLY_RADII_PER_SECOND * if fast { FAST_FACTOR } else { 1.0 };
        let delta = Mat3::from_cols(self.right(), Vec3::Y, self.forward()) * input;
        self.target += delta * speed * dt;
    }

    /// Switches between orbit and fly mode, keeping the view.
    pub fn toggle_mode(&mut self) {
        self.mode = match self.mode {
            Mode::Orbit => Mode::Fly,
            Mode::Fly => Mode::Orbit,
        };
    }

    /// Near and far clip distances: close enough to fly among the crowd,
    /// far enough to see the whole ground.
    pub fn clip_planes(&self) -> (f32, f32) {
        let near = match self.mode {
            Mode::Fly => self.scene_radius * 2e-3,
            Mode::Orbit => (self.distance * 0.01).max(self.scene_radius * 1e-3),
        };
        (near, self.distance + self.scene_radius * 12.0)
    }

    /// The camera for a viewport of `aspect` (width / height).
    pub fn camera(&self, aspect: f32) -> Camera {
        let (near, far) = self.clip_planes();
        Camera::look_at(
            self.eye(),
            self.target,
            Vec3::Y,
            self.fov_y,
            aspect.max(1e-3),
            near,
            far,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec4Swizzles;

    const EPS: f32 = 1e-4;

    fn controller() -> CameraController {
        CameraController::new(
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(0.0, 1.0, 1.0),
            10.0,
            0.8,
            5.0,
        )
    }

    /// Pixel position of `p` in a `w × h` viewport.
    fn to_pixels(c: &CameraController, p: Vec3, w: f32, h: f32) -> (f32, f32) {
        let clip = c.camera(w / h).clip_from_world() * p.extend(1.0);
        let ndc = clip.xyz() / clip.w;
        ((ndc.x + 1.0) * 0.5 * w, (1.0 - ndc.y) * 0.5 * h)
    }

    #[test]
    fn eye_sits_behind_the_target_along_back() {
        let c = controller();
        assert!((c.eye().distance(c.target) - 10.0).abs() < EPS);
        let expected = Vec3::new(0.0, 1.0, 1.0).normalize();
        assert!(c.back().abs_diff_eq(expected, EPS), "{}", c.back());
        assert!(c.forward().dot(c.target - c.eye()) > 0.0);
        // right, up, forward form a right-handed orthonormal frame.
        assert!(c.right().dot(c.up()).abs() < EPS);
        assert!(c.right().cross(c.up()).abs_diff_eq(-c.forward(), EPS));
        // The target projects to the centre of the screen.
        let (x, y) = to_pixels(&c, c.target, 800.0, 600.0);
        assert!((x - 400.0).abs() < 1e-2 && (y - 300.0).abs() < 1e-2);
    }

    #[test]
    fn orbit_keeps_target_and_distance_and_clamps_pitch() {
        let mut c = controller();
        let eye = c.eye();
        c.orbit(100.0, 0.0);
        assert_eq!(c.target, Vec3::new(1.0, 2.0, 3.0));
        assert!((c.eye().distance(c.target) - 10.0).abs() < EPS);
        assert!(c.eye().distance(eye) > 1.0, "the eye moved");
        assert!(
            (c.eye().y - eye.y).abs() < EPS,
            "a horizontal drag keeps height"
        );
        c.orbit(0.0, 1e6);
        assert_eq!(c.pitch, MAX_PITCH);
        c.orbit(0.0, -1e6);
        assert_eq!(c.pitch, -MAX_PITCH);
    }

    #[test]
    fn dragging_right_turns_the_scene_right() {
        // Like grabbing a turntable by its near edge: a drag to the right
        // swings the eye left, so a point on the near side of the target
        // moves right on screen.
        let mut c = controller();
        let p = c.target + c.back() * 2.0;
        let (x0, _) = to_pixels(&c, p, 800.0, 600.0);
        c.orbit(20.0, 0.0);
        let (x1, _) = to_pixels(&c, p, 800.0, 600.0);
        assert!(x1 > x0, "{x0} → {x1}");
    }

    #[test]
    fn pan_follows_the_pointer_pixel_for_pixel() {
        let mut c = controller();
        let (w, h) = (800.0, 600.0);
        let p = c.target;
        let (x0, y0) = to_pixels(&c, p, w, h);
        c.pan(30.0, -20.0, h);
        let (x1, y1) = to_pixels(&c, p, w, h);
        assert!((x1 - x0 - 30.0).abs() < 0.05, "dx {}", x1 - x0);
        assert!((y1 - y0 + 20.0).abs() < 0.05, "dy {}", y1 - y0);
        assert!((c.eye().distance(c.target) - 10.0).abs() < EPS);
    }

    #[test]
    fn zoom_scales_distance_within_limits() {
        let mut c = controller();
        c.zoom(1.0);
        assert!((c.distance - 10.0 * ZOOM_PER_STEP).abs() < EPS);
        c.zoom(-2.0);
        assert!((c.distance - 10.0 / ZOOM_PER_STEP).abs() < 1e-3);
        c.zoom(1000.0);
        assert_eq!(c.distance, c.distance_limits().0);
        c.zoom(-1000.0);
        assert_eq!(c.distance, c.distance_limits().1);
    }

    #[test]
    fn fly_look_keeps_the_eye_and_moves_along_the_view() {
        let mut c = controller();
        c.toggle_mode();
        assert_eq!(c.mode, Mode::Fly);
        let eye = c.eye();
        c.look(50.0, -30.0);
        assert!(c.eye().abs_diff_eq(eye, 1e-3), "look turns about the eye");
        let forward = c.forward();
        c.fly(Vec3::Z, 2.0, false);
        let step = c.scene_radius * FLY_RADII_PER_SECOND * 2.0;
        assert!(c.eye().abs_diff_eq(eye + forward * step, 1e-3));
        let before = c.eye();
        c.fly(Vec3::Y, 1.0, true);
        let up = c.scene_radius * FLY_RADII_PER_SECOND * FAST_FACTOR;
        assert!(
            c.eye().abs_diff_eq(before + Vec3::Y * up, 1e-3),
            "E goes up"
        );
        let before = c.eye();
        c.fly(Vec3::X, 1.0, false);
        assert!((c.eye() - before).dot(c.right()) > 0.0, "D goes right");
        // Leaving fly mode keeps the view.
        let (eye, target) = (c.eye(), c.target);
        c.toggle_mode();
        assert_eq!(c.mode, Mode::Orbit);
        assert!(c.eye().abs_diff_eq(eye, EPS) && c.target == target);
    }

    #[test]
    fn framing_sees_the_whole_crowd() {
        let b = Aabb {
            min: Vec3::new(-3000.0, -4.0, -2500.0),
            max: Vec3::new(3100.0, 80.0, 2600.0),
        };
        let c = CameraController::framing(&b, 40f32.to_radians(), 16.0 / 9.0);
        assert_eq!(c.mode, Mode::Orbit);
        assert!(c.target.abs_diff_eq(b.center(), EPS));
        let m = c.camera(16.0 / 9.0).clip_from_world();
        for p in b.corners() {
            let q = m * p.extend(1.0);
            let ndc = q.xyz() / q.w;
            assert!(
                ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0 && (0.0..=1.0).contains(&ndc.z),
                "corner {p} → {ndc}"
            );
        }
        let (lo, hi) = c.distance_limits();
        assert!((lo..=hi).contains(&c.distance));
    }

    #[test]
    fn shrinking_keeps_centre_and_height() {
        let b = Aabb {
            min: Vec3::new(-10.0, 1.0, 0.0),
            max: Vec3::new(10.0, 3.0, 40.0),
        };
        let s = shrink_xz(&b, 0.5);
        assert_eq!(s.min, Vec3::new(-5.0, 1.0, 10.0));
        assert_eq!(s.max, Vec3::new(5.0, 3.0, 30.0));
        assert!(shrink_xz(&Aabb::EMPTY, 0.5).is_empty());
    }

    #[test]
    fn clip_planes_hold_the_scene() {
        let mut c = controller();
        let (near, far) = c.clip_planes();
        assert!(near > 0.0 && near < c.distance && far > c.distance + c.scene_radius);
        c.toggle_mode();
        let (fly_near, _) = c.clip_planes();
        assert!(fly_near <= near);
    }
}
