//! Which glTF extensions the baker reads, and what it says of the others
//! (docs/GLTF.md). A file whose `extensionsRequired`
//! names one the baker does not read is refused before anything else is
//! read, in one line naming it and listing what the baker reads (the
//! caller names the file); one that
//! is only in `extensionsUsed` is named once as a warning, with what is
//! lost by ignoring it.

use crate::error::ImportError;

/// The extensions the baker reads, with what each brings.
pub const READ: &[(&str, &str)] = &[
    (
        "KHR_mesh_quantization",
        "integer positions, normals, tangents and texture coordinates, dequantized at import",
    ),
    (
        "EXT_meshopt_compression",
        "meshopt-compressed buffer views, decoded at import",
    ),
    (
        "KHR_meshopt_compression",
        "meshopt-compressed buffer views (the newer codec and filters), decoded at import",
    ),
    (
        "KHR_draco_mesh_compression",
        "Draco-compressed primitives (skinned ones included), decoded at import",
    ),
    (
        "KHR_texture_basisu",
        "KTX2 images (Basis Universal ETC1S or UASTC, Zstandard or not), transcoded at bake into the bake's own texture codec",
    ),
    (
        "EXT_texture_webp",
        "WebP images (lossless or lossy), decoded at bake into the bake's own texture codec",
    ),
    (
        "KHR_texture_transform",
        "texture coordinate offset, rotation and scale per texture",
    ),
    (
        "KHR_materials_emissive_strength",
        "emissive colours brighter than 1",
    ),
];

/// The extensions that give a texture an image of their own
/// (`textures[i].extensions.X.source`), in the order a texture naming
/// several is read by: the first present wins, `source` is the fallback.
pub(crate) const IMAGE_EXTENSIONS: &[&str] = &["KHR_texture_basisu", "EXT_texture_webp"];

/// What ignoring an extension the baker knows of but does not read loses,
/// when the file only uses it (a reader may ignore it).
const IGNORED: &[(&str, &str)] = &[
    ("KHR_materials_unlit", "the materials are drawn lit"),
    (
        "KHR_materials_pbrSpecularGlossiness",
        "the specular-glossiness parameters (the metallic-roughness ones are read)",
    ),
    ("KHR_lights_punctual", "the file's lights"),
    ("KHR_materials_variants", "every variant but the default"),
];

/// An extension a file uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtensionUse {
    /// Its name.
    pub name: String,
    /// In the file's `extensionsRequired`.
    pub required: bool,
    /// The baker reads it ([`READ`]).
    pub read: bool,
}

/// Every extension of `used` and `required` (each once, in the order
/// met), with whether it is required and read.
pub fn uses(used: &[String], required: &[String]) -> Vec<ExtensionUse> {
    let mut out: Vec<ExtensionUse> = Vec::new();
    for name in used.iter().chain(required) {
        if !out.iter().any(|e| &e.name == name) {
            out.push(ExtensionUse {
                name: name.clone(),
                required: required.contains(name),
                read: is_read(name),
            });
        }
    }
    out
}

/// True if the baker reads `name`.
pub fn is_read(name: &str) -> bool {
    READ.iter().any(|(n, _)| *n == name)
}

/// The names of [`READ`], comma-separated.
pub fn read_list() -> String {
    READ.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// Refuses a file requiring an extension the baker does not read; warns
/// once for each used one it ignores.
pub(crate) fn check(
    required: &[String],
    used: &[String],
    warn: &mut dyn FnMut(String),
) -> Result<(), ImportError> {
    if let Some(ext) = required.iter().find(|e| !is_read(e)) {
        return Err(ImportError::RequiredExtension {
            extension: ext.clone(),
            reads: read_list(),
        });
    }
    let mut seen: Vec<&str> = Vec::new();
    for ext in used.iter().filter(|e| !is_read(e)) {
        if seen.contains(&ext.as_str()) {
            continue;
        }
        seen.push(ext);
        let lost = IGNORED
            .iter()
            .find(|(n, _)| n == ext)
            .map_or("whatever it adds to the file", |(_, lost)| lost);
        warn(format!(
            "extensionsUsed: {ext} is not read by this baker; lost: {lost}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_required_extension_not_read_is_refused_in_one_line() {
        let required = ["KHR_mesh_quantization".to_owned(), "EXT_foo".to_owned()];
        let e = check(&required, &[], &mut |_| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "requires EXT_foo, which this baker does not read; it reads: {}",
                read_list()
            )
        );
        assert!(read_list().starts_with("KHR_mesh_quantization, EXT_meshopt_compression"));
    }

    #[test]
    fn used_extensions_not_read_are_named_once_with_what_is_lost() {
        let used = [
            "KHR_texture_transform",
            "KHR_materials_unlit",
            "EXT_bar",
            "EXT_bar",
        ]
        .map(String::from);
        let mut warnings = Vec::new();
        check(&[], &used, &mut |w| warnings.push(w)).unwrap();
        assert_eq!(
            warnings,
            [
                "extensionsUsed: KHR_materials_unlit is not read by this baker; lost: the materials are drawn lit",
                "extensionsUsed: EXT_bar is not read by this baker; lost: whatever it adds to the file",
            ]
        );
    }

    #[test]
    fn every_image_extension_is_one_the_baker_reads() {
        for name in IMAGE_EXTENSIONS {
            assert!(
                is_read(name),
                "{name} gives textures images but is not in READ"
            );
        }
    }
}
