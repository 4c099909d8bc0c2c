//! Distance fog between the eye and the crowd ([`Fog`], part of
//! [`Lighting`](crate::Lighting)): the formulas of Bevy's `DistanceFog`
//! (after Direct3D's fog formulas and Íñigo Quílez's atmospheric fog), so a
//! crowd inside a Bevy scene fogs as the scene does. `shaders/fog.wgsl`
//! applies it at the end of the mesh's and the impostor's shading; a custom
//! fragment calls `fog_apply` itself.

use bytemuck::Zeroable;
use glam::{Vec3, Vec4};

use crate::base::uniforms::FogUniforms;

/// Distance fog.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fog {
    /// Fog colour (linear RGB) and its opacity at full density (alpha).
    pub color: Vec4,
    /// The directional light scattered towards the eye (linear RGB, in the
    /// units of the light's colour): added to the fog colour when looking
    /// straight at the light, fading as `cos^exponent` away from it. Zero:
    /// none.
    pub light_scatter: Vec3,
    /// Exponent of that fade (larger: a tighter glow).
    pub light_exponent: f32,
    /// How the fog thickens with distance from the eye.
    pub falloff: FogFalloff,
}

/// How fog thickens with distance `d` from the eye.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FogFalloff {
    /// None at `start`, full at `end`, linear between.
    Linear {
        /// Distance where the fog begins.
        start: f32,
        /// Distance where it is full.
        end: f32,
    },
    /// `1 − e^(−d·density)`.
    Exponential {
        /// Density, per world unit.
        density: f32,
    },
    /// `1 − e^(−(d·density)²)`.
    ExponentialSquared {
        /// Density, per world unit.
        density: f32,
    },
    /// Per channel: the surface's light is absorbed by `1 − e^(−d·extinction)`
    /// and the fog's colour added by `1 − e^(−d·inscattering)`.
    Atmospheric {
        /// Extinction per world unit, per channel.
        extinction: Vec3,
        /// In-scattering per world unit, per channel.
        inscattering: Vec3,
    },
}

/// `FogUniforms::mode` values, as `fog.wgsl`'s `FOG_*` constants.
const MODE_NONE: u32 = 0;
const MODE_LINEAR: u32 = 1;
const MODE_EXPONENTIAL: u32 = 2;
const MODE_EXPONENTIAL_SQUARED: u32 = 3;
const MODE_ATMOSPHERIC: u32 = 4;

impl FogUniforms {
    /// The shader's fog for `fog` (`None`: no fog).
    pub fn new(fog: Option<&Fog>) -> Self {
        let Some(f) = fog else {
            return Self {
                mode: MODE_NONE,
                ..Self::zeroed()
            };
        };
        let (mode, params, inscattering) = match f.falloff {
            FogFalloff::Linear { start, end } => {
                (MODE_LINEAR, Vec3::new(start, end, 0.0), Vec3::ZERO)
            }
            FogFalloff::Exponential { density } => {
                (MODE_EXPONENTIAL, Vec3::new(density, 0.0, 0.0), Vec3::ZERO)
            }
            FogFalloff::ExponentialSquared { density } => (
                MODE_EXPONENTIAL_SQUARED,
                Vec3::new(density, 0.0, 0.0),
                Vec3::ZERO,
            ),
            FogFalloff::Atmospheric {
                extinction,
                inscattering,
            } => (MODE_ATMOSPHERIC, extinction, inscattering),
        };
        Self {
            color: f.color.to_array(),
            scatter: f.light_scatter.extend(f.light_exponent).to_array(),
            params: params.to_array(),
            mode,
            inscattering: inscattering.extend(0.0).to_array(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_fog_is_mode_none_and_each_falloff_has_its_mode() {
        assert_eq!(FogUniforms::new(None).mode, MODE_NONE);
        let fog = |falloff| Fog {
            color: Vec4::ONE,
            light_scatter: Vec3::ZERO,
            light_exponent: 8.0,
            falloff,
        };
        let u = FogUniforms::new(Some(&fog(FogFalloff::Linear {
            start: 1.0,
            end: 2.0,
        })));
        assert_eq!((u.mode, u.params), (MODE_LINEAR, [1.0, 2.0, 0.0]));
        let u = FogUniforms::new(Some(&fog(FogFalloff::Exponential { density: 0.5 })));
        assert_eq!((u.mode, u.params[0]), (MODE_EXPONENTIAL, 0.5));
        let u = FogUniforms::new(Some(&fog(FogFalloff::ExponentialSquared { density: 0.5 })));
        assert_eq!((u.mode, u.params[0]), (MODE_EXPONENTIAL_SQUARED, 0.5));
        let u = FogUniforms::new(Some(&fog(FogFalloff::Atmospheric {
            extinction: Vec3::new(1.0, 2.0, 3.0),
            inscattering: Vec3::new(4.0, 5.0, 6.0),
        })));
        assert_eq!(u.mode, MODE_ATMOSPHERIC);
        assert_eq!(
            (u.params, u.inscattering),
            ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 0.0])
        );
        assert_eq!(u.scatter[3], 8.0);
    }
}
