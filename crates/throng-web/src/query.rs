//! The page's address parameters: what the user (or the browser test) asks
//! for in `?model=URL&instances=N&backend=webgl2&time=T&seed=S&walk=0|1|steer&outfits=1`
//! (`model` repeated: a mixed crowd), `&gltf=URL` (baked in the browser),
//! `&camera=eye`, `&occlusion=0`. Bad values
//! are errors that name the parameter; counts over the most the page draws
//! are clamped, and the clamp is reported.

use anyhow::{Result, bail};

/// Instances drawn when `?instances=` is absent: the viewer's default crowd.
pub const DEFAULT_INSTANCES: u32 = 1_000;

/// The most instances the page draws; a larger `?instances=` is clamped.
pub const MAX_INSTANCES: u32 = 1_000_000;

/// The model drawn when `?model=` is absent: the baked Fox beside the page.
pub const DEFAULT_MODEL: &str = "fox.throng";

/// The herd's seed when `?seed=` is absent (the viewer's).
pub const DEFAULT_SEED: u64 = 1;

/// Which of the browser's backends to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// WebGPU where the browser gives an adapter, else WebGL2.
    Auto,
    /// WebGL2 only (`?backend=webgl2`).
    WebGl2,
    /// WebGPU only (`?backend=webgpu`): no fallback, an error without it.
    WebGpu,
}

/// Where the page's camera starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageCamera {
    /// Above the herd, looking down at its middle (the default).
    Orbit,
    /// At the herd's front edge near the ground, looking along it: most of
    /// the herd hidden behind its front rows (`?camera=eye`).
    Eye,
}

/// The page's parameters, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct PageQuery {
    /// The `.throng` files' URLs: one, or several for a mixed crowd
    /// (`?model=` repeated; they share the first one's clips).
    pub models: Vec<String>,
    /// A glTF file's URL (`?gltf=`): baked in the browser, it is the
    /// page's model instead of `models`.
    pub gltf: Option<String>,
    /// Each model is worn as outfits, every instance wearing one
    /// (`?outfits=1`).
    pub outfits: bool,
    /// Instances to draw (clamped to [`MAX_INSTANCES`]).
    pub instances: u32,
    /// The asked count, when it was clamped.
    pub clamped_from: Option<u64>,
    /// Backend choice.
    pub backend: BackendChoice,
    /// A fixed crowd time in seconds: every frame shows the crowd at this
    /// time (the browser test's pictures). `None`: the crowd lives.
    pub time: Option<f32>,
    /// The herd's seed.
    pub seed: u64,
    /// The crowd walks (`?walk=0` stands it): steered, or on waypoint
    /// loops as the viewer's `--loops` (`?walk=1`, and wherever it cannot
    /// be steered).
    pub walk: bool,
    /// The crowd is steered on the GPU across the viewer's plaza where the
    /// path is GPU-driven and the time is not fixed: the default
    /// (`?walk=steer`).
    pub steer: bool,
    /// The herd stands on the demo's terrain (hills and a stair), the
    /// default as in the viewer (`?ground=terrain`), or on the flat
    /// ground (`?ground=flat`).
    pub terrain: bool,
    /// Where the camera starts (`?camera=orbit|eye`).
    pub camera: PageCamera,
    /// Two-phase occlusion culling where the path is GPU-driven (the
    /// default; `?occlusion=0` turns it off, for the picture it must not
    /// change).
    pub occlusion: bool,
}

impl Default for PageQuery {
    fn default() -> Self {
        Self {
            models: vec![DEFAULT_MODEL.to_owned()],
            gltf: None,
            outfits: false,
            instances: DEFAULT_INSTANCES,
            clamped_from: None,
            backend: BackendChoice::Auto,
            time: None,
            seed: DEFAULT_SEED,
            walk: true,
            steer: true,
            terrain: true,
            camera: PageCamera::Orbit,
            occlusion: true,
        }
    }
}

impl PageQuery {
    /// Parses `search`, the address's query (`?a=1&b=2`, the `?` optional).
    /// Unknown parameters are ignored, as pages do; a known one with a bad
    /// value is an error naming it.
    pub fn parse(search: &str) -> Result<Self> {
        let mut q = Self::default();
        let mut models = Vec::new();
        for pair in search.trim_start_matches('?').split('&') {
            if pair.is_empty() {
                continue;
            }
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(value);
            match key {
                "model" if value.is_empty() => {
                    bail!("?model= is empty: give the URL of a .throng file")
                }
                "model" => models.push(value),
                "gltf" if value.is_empty() => {
                    bail!("?gltf= is empty: give the URL of a .glb or .gltf file")
                }
                "gltf" => q.gltf = Some(value),
                "outfits" => {
                    q.outfits = match value.as_str() {
                        "1" | "true" | "" => true,
                        "0" | "false" => false,
                        other => bail!("?outfits={other} is not 0 or 1"),
                    }
                }
                "instances" => {
                    let asked: u64 = value.parse().map_err(|_| {
                        anyhow::anyhow!(
                            "?instances={value} is not a count: give a whole number from 0 to {MAX_INSTANCES}"
                        )
                    })?;
                    q.instances = asked.min(u64::from(MAX_INSTANCES)) as u32;
                    q.clamped_from = (asked > u64::from(MAX_INSTANCES)).then_some(asked);
                }
                "backend" => {
                    q.backend = match value.as_str() {
                        "webgl2" | "gl" => BackendChoice::WebGl2,
                        "webgpu" => BackendChoice::WebGpu,
                        "auto" | "" => BackendChoice::Auto,
                        other => bail!("?backend={other} is not a backend: webgpu, webgl2 or auto"),
                    }
                }
                "time" => {
                    let t: f32 = value
                        .parse()
                        .map_err(|_| anyhow::anyhow!("?time={value} is not a number of seconds"))?;
                    if !(t.is_finite() && t >= 0.0) {
                        bail!("?time={value}: the time must be finite and not negative");
                    }
                    q.time = Some(t);
                }
                "walk" => {
                    (q.walk, q.steer) = match value.as_str() {
                        "1" | "true" | "" => (true, false),
                        "0" | "false" => (false, false),
                        "steer" => (true, true),
                        other => bail!("?walk={other} is not 0, 1 or steer"),
                    }
                }
                "ground" => {
                    q.terrain = match value.as_str() {
                        "terrain" | "" => true,
                        "flat" => false,
                        other => bail!("?ground={other} is not terrain or flat"),
                    }
                }
                "camera" => {
                    q.camera = match value.as_str() {
                        "orbit" | "" => PageCamera::Orbit,
                        "eye" => PageCamera::Eye,
                        other => bail!("?camera={other} is not orbit or eye"),
                    }
                }
                "occlusion" => {
                    q.occlusion = match value.as_str() {
                        "1" | "true" | "" => true,
                        "0" | "false" => false,
                        other => bail!("?occlusion={other} is not 0 or 1"),
                    }
                }
                "seed" => {
                    q.seed = value
                        .parse()
                        .map_err(|_| anyhow::anyhow!("?seed={value} is not a whole number"))?;
                }
                _ => {}
            }
        }
        if !models.is_empty() {
            q.models = models;
        }
        Ok(q)
    }
}

/// Percent-decoding of a query value (`%2F` → `/`, `+` → space); a broken
/// escape stays as written.
fn decode(value: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = match bytes.get(i..i + 3) {
            Some([b'%', hi, lo]) => hex(*hi).zip(hex(*lo)).map(|(h, l)| h << 4 | l),
            _ => None,
        };
        match (escaped, bytes[i]) {
            (Some(b), _) => {
                out.push(b);
                i += 3;
            }
            (None, b'+') => {
                out.push(b' ');
                i += 1;
            }
            (None, b) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_values() {
        assert_eq!(PageQuery::parse("").unwrap(), PageQuery::default());
        let q = PageQuery::parse(
            "?model=a%2Fb.throng&instances=10000&backend=webgl2&time=1.5&seed=7&x=y",
        )
        .unwrap();
        assert_eq!(q.models, ["a/b.throng"]);
        assert_eq!(q.gltf, None);
        let g = PageQuery::parse("gltf=models%2Ffox.glb").unwrap();
        assert_eq!(g.gltf.as_deref(), Some("models/fox.glb"));
        assert!(!q.outfits);
        let mixed = PageQuery::parse("model=a.throng&model=b.throng&outfits=1").unwrap();
        assert_eq!(mixed.models, ["a.throng", "b.throng"]);
        assert!(mixed.outfits);
        assert_eq!(q.instances, 10_000);
        assert_eq!(q.backend, BackendChoice::WebGl2);
        assert_eq!(q.time, Some(1.5));
        assert_eq!(q.seed, 7);
        assert_eq!(q.clamped_from, None);
        assert!(q.walk && q.steer);
        assert!(!PageQuery::parse("walk=0").unwrap().walk);
        let steer = PageQuery::parse("walk=steer").unwrap();
        assert!(steer.walk && steer.steer);
        let loops = PageQuery::parse("walk=1").unwrap();
        assert!(loops.walk && !loops.steer);
        assert!(PageQuery::parse("ground=terrain").unwrap().terrain && q.terrain);
        assert!(!PageQuery::parse("ground=flat").unwrap().terrain);
        let eye = PageQuery::parse("camera=eye&occlusion=0").unwrap();
        assert_eq!((eye.camera, eye.occlusion), (PageCamera::Eye, false));
        assert_eq!((q.camera, q.occlusion), (PageCamera::Orbit, true));
    }

    #[test]
    fn bad_values_are_errors_that_name_the_parameter() {
        for (query, names) in [
            ("instances=-1", "?instances=-1"),
            ("instances=lots", "?instances=lots"),
            ("instances=", "?instances="),
            ("time=-2", "?time=-2"),
            ("time=NaN", "?time=NaN"),
            ("time=inf", "?time=inf"),
            ("backend=vulkan", "?backend=vulkan"),
            ("model=", "?model="),
            ("gltf=", "?gltf="),
            ("seed=x", "?seed=x"),
            ("walk=maybe", "?walk=maybe"),
            ("outfits=some", "?outfits=some"),
            ("ground=lava", "?ground=lava"),
            ("camera=top", "?camera=top"),
            ("occlusion=maybe", "?occlusion=maybe"),
        ] {
            let e = PageQuery::parse(query).expect_err(query).to_string();
            assert!(e.contains(names), "{query}: {e}");
        }
    }

    #[test]
    fn absurd_counts_are_clamped_and_say_so() {
        let q = PageQuery::parse("instances=99999999999999").unwrap();
        assert_eq!(q.instances, MAX_INSTANCES);
        assert_eq!(q.clamped_from, Some(99_999_999_999_999));
        assert_eq!(PageQuery::parse("instances=0").unwrap().instances, 0);
        assert!(PageQuery::parse("instances=99999999999999999999999").is_err());
    }

    #[test]
    fn broken_escapes_stay_as_written() {
        assert_eq!(decode("a%zzb%4"), "a%zzb%4");
        assert_eq!(decode("%41+%42"), "A B");
        assert_eq!(decode("%é%"), "%é%");
    }
}
