//! Bevy's cameras and lights as Throng's: by value across the glam versions
//! (Bevy 0.20 uses glam 0.33, Throng 0.34).
//!
//! The light is mapped so that a diffuse surface lit by Throng looks as
//! Bevy's Lambertian term would light it: Throng's light colour is Bevy's
//! `color × illuminance × exposure / π`, its ambient term `color ×
//! brightness × exposure`, with the camera's [`Exposure`] (Bevy's default,
//! EV100 9.7, when it has none).
//!
//! A camera's [`DistanceFog`] is Throng's fog with Bevy's formulas; the
//! light it scatters is the brightest directional light's, unshadowed.
//!
//! Shadows are Throng's own map, fitted each frame to the crowd in view
//! along the same light: on when that light has `shadow_maps_enabled`, its
//! side Bevy's [`DirectionalLightShadowMap`] size, and full (a shadowed
//! surface keeps only the ambient term, as in Bevy).
//!
//! A camera's prepasses (`DepthPrepass`, `NormalPrepass`,
//! `MotionVectorPrepass`) are the attachments of the crowd's prepass
//! ([`prepass_target`]), laid out as Bevy's prepass node lays them out.

use bevy::camera::{Camera, Exposure, Projection};
use bevy::light::{DirectionalLight, DirectionalLightShadowMap, GlobalAmbientLight};
use bevy::pbr::{DistanceFog, FogFalloff};
use bevy::prelude::*;
use throng_render::ShadowOptions;
use throng_render::{Fog, Lighting};

/// A Bevy (glam 0.33) matrix as Throng's (glam 0.34).
pub fn mat4(m: bevy::math::Mat4) -> glam::Mat4 {
    glam::Mat4::from_cols_array(&m.to_cols_array())
}

/// A Bevy (glam 0.33) vector as Throng's (glam 0.34).
pub fn vec3(v: bevy::math::Vec3) -> glam::Vec3 {
    glam::Vec3::from_array(v.to_array())
}

/// Throng's camera for a Bevy camera at `transform`: Bevy's own projection
/// (reverse Z, infinite far plane for a perspective one), so the crowd
/// shares the view's depth buffer.
pub fn camera(
    camera: &Camera,
    transform: &GlobalTransform,
    projection: Option<&Projection>,
) -> throng_crowd::camera::Camera {
    let fov_y = match projection {
        Some(Projection::Perspective(p)) => p.fov,
        // No angle: LOD by distance as at 45°.
        _ => std::f32::consts::FRAC_PI_4,
    };
    throng_crowd::camera::Camera {
        view_from_world: mat4(transform.to_matrix().inverse()),
        clip_from_view: mat4(camera.clip_from_view()),
        eye: vec3(transform.translation()),
        fov_y,
    }
}

/// Linear RGB of a Bevy colour.
fn linear(c: Color) -> glam::Vec3 {
    let l = c.to_linear();
    glam::Vec3::new(l.red, l.green, l.blue)
}

/// Throng's lighting for the scene's brightest directional light, its
/// ambient light and the camera's fog, seen through `exposure` (no
/// directional light: the ambient alone).
pub fn lighting(
    light: Option<(&DirectionalLight, &GlobalTransform)>,
    ambient: Option<&GlobalAmbientLight>,
    exposure: Option<&Exposure>,
    fog: Option<&DistanceFog>,
) -> Lighting {
    let exposure = exposure.copied().unwrap_or_default().exposure();
    let (direction, color) = match light {
        Some((l, t)) => (
            vec3(t.back().into()),
            linear(l.color) * (l.illuminance * exposure / std::f32::consts::PI),
        ),
        None => (glam::Vec3::Y, glam::Vec3::ZERO),
    };
    let ambient = ambient.map_or(glam::Vec3::ZERO, |a| {
        linear(a.color) * (a.brightness * exposure)
    });
    Lighting {
        direction,
        color,
        ambient,
        ground: ambient,
        fog: fog.map(|f| self::fog(f, light, exposure)),
        ..Lighting::default()
    }
}

/// Throng's fog for Bevy's `fog`, with the light it scatters: Bevy's
/// `directional_light_color` (× its alpha) × the light's colour ×
/// illuminance × `exposure`, as Bevy's `apply_fog` adds it.
pub fn fog(
    fog: &DistanceFog,
    light: Option<(&DirectionalLight, &GlobalTransform)>,
    exposure: f32,
) -> Fog {
    let color = fog.color.to_linear();
    let glow = fog.directional_light_color.to_linear();
    let light_scatter = match light {
        Some((l, _)) if glow.alpha > 0.0 => {
            linear(fog.directional_light_color)
                * glow.alpha
                * linear(l.color)
                * l.illuminance
                * exposure
        }
        _ => glam::Vec3::ZERO,
    };
    let falloff = match fog.falloff {
        FogFalloff::Linear { start, end } => throng_render::FogFalloff::Linear { start, end },
        FogFalloff::Exponential { density } => throng_render::FogFalloff::Exponential { density },
        FogFalloff::ExponentialSquared { density } => {
            throng_render::FogFalloff::ExponentialSquared { density }
        }
        FogFalloff::Atmospheric {
            extinction,
            inscattering,
        } => throng_render::FogFalloff::Atmospheric {
            extinction: vec3(extinction),
            inscattering: vec3(inscattering),
        },
    };
    Fog {
        color: glam::Vec4::new(color.red, color.green, color.blue, color.alpha),
        light_scatter,
        light_exponent: fog.directional_light_exponent,
        falloff,
    }
}

/// Throng's shadows for the scene's brightest directional light (`None`:
/// no light, or its shadows are off).
pub fn shadows(
    light: Option<(&DirectionalLight, &GlobalTransform)>,
    map: Option<&DirectionalLightShadowMap>,
) -> Option<ShadowOptions> {
    let (light, _) = light?;
    light.shadow_maps_enabled.then(|| ShadowOptions {
        map_size: map.map_or(ShadowOptions::default().map_size, |m| {
            u32::try_from(m.size).unwrap_or(u32::MAX)
        }),
        strength: 1.0,
        ..ShadowOptions::default()
    })
}

/// Which of Bevy's prepasses a camera has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prepasses {
    /// `DepthPrepass`.
    pub depth: bool,
    /// `NormalPrepass`.
    pub normal: bool,
    /// `MotionVectorPrepass`.
    pub motion_vectors: bool,
    /// `DeferredPrepass`.
    pub deferred: bool,
}

/// The attachments of a camera's prepass as Bevy's prepass node lays them
/// out (`[normal?, motion vectors?, deferred?, deferred id?]`, none when
/// it writes depth only), or `None` where the crowd is not drawn there:
/// no prepass, or a deferred one.
pub fn prepass_target(passes: Prepasses, samples: u32) -> Option<throng_render::PrepassTarget> {
    let any = passes.depth || passes.normal || passes.motion_vectors;
    if !any || passes.deferred {
        return None;
    }
    let colours = passes.normal || passes.motion_vectors;
    Some(throng_render::PrepassTarget {
        depth_format: bevy::core_pipeline::core_3d::CORE_3D_DEPTH_FORMAT,
        depth: throng_render::DepthConvention::Reversed,
        normals: passes
            .normal
            .then_some(bevy::core_pipeline::prepass::NORMAL_PREPASS_FORMAT),
        motion_vectors: passes
            .motion_vectors
            .then_some(bevy::core_pipeline::prepass::MOTION_VECTOR_PREPASS_FORMAT),
        color_slots: if colours { 4 } else { 0 },
        sample_count: samples,
    })
}
