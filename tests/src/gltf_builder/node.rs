//! Nodes of the built document: a name, a local transform (none, TRS or a
//! matrix), children, a mesh and a skin, set with builder methods.

use glam::{Mat4, Quat, Vec3};

/// A node's local transform as written to the file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Transform {
    /// No transform property at all (identity).
    None,
    /// `translation`, `rotation` (xyzw), `scale`.
    Trs {
        /// Translation.
        translation: Vec3,
        /// Rotation; written as given (not normalised).
        rotation: Quat,
        /// Scale.
        scale: Vec3,
    },
    /// `matrix`, column-major.
    Matrix(Mat4),
}

/// A node to add with [`GltfBuilder::node`](super::GltfBuilder::node).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// `name`.
    pub name: String,
    /// Local transform.
    pub transform: Transform,
    /// `children` (node indices).
    pub children: Vec<usize>,
    /// `mesh`.
    pub mesh: Option<usize>,
    /// `skin`.
    pub skin: Option<usize>,
}

impl Node {
    /// A node with no transform, children, mesh or skin.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            transform: Transform::None,
            children: Vec::new(),
            mesh: None,
            skin: None,
        }
    }

    fn trs(&mut self) -> (&mut Vec3, &mut Quat, &mut Vec3) {
        if !matches!(self.transform, Transform::Trs { .. }) {
            self.transform = Transform::Trs {
                translation: Vec3::ZERO,
                rotation: Quat::IDENTITY,
                scale: Vec3::ONE,
            };
        }
        match &mut self.transform {
            Transform::Trs {
                translation,
                rotation,
                scale,
            } => (translation, rotation, scale),
            _ => unreachable!("set just above"),
        }
    }

    /// Sets `translation` (switching to a TRS transform).
    pub fn translation(mut self, t: [f32; 3]) -> Self {
        *self.trs().0 = Vec3::from_array(t);
        self
    }

    /// Sets `rotation` from quaternion components `[x, y, z, w]`.
    pub fn rotation(mut self, q: [f32; 4]) -> Self {
        *self.trs().1 = Quat::from_array(q);
        self
    }

    /// Sets `scale`.
    pub fn scale(mut self, s: [f32; 3]) -> Self {
        *self.trs().2 = Vec3::from_array(s);
        self
    }

    /// Sets `matrix` from its 16 column-major entries.
    pub fn matrix(mut self, m: [f32; 16]) -> Self {
        self.transform = Transform::Matrix(Mat4::from_cols_array(&m));
        self
    }

    /// Sets `children`.
    pub fn children(mut self, children: &[usize]) -> Self {
        self.children = children.to_vec();
        self
    }

    /// Sets `mesh`.
    pub fn mesh(mut self, mesh: usize) -> Self {
        self.mesh = Some(mesh);
        self
    }

    /// Sets `skin`.
    pub fn skin(mut self, skin: usize) -> Self {
        self.skin = Some(skin);
        self
    }
}
