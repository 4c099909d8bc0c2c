//! WGSL checks shared by every crate's shader tests: parse and validate with
//! naga (printing naga's own report on failure), and read a struct's member
//! offsets and size as naga lays them out, to compare with a `#[repr(C)]`
//! twin.

/// Parses and validates `source` (named `name` in failures) with the given
/// capabilities (`Capabilities::empty()` for what downlevel adapters run).
pub fn validate(name: &str, source: &str, capabilities: naga::valid::Capabilities) -> naga::Module {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.emit_to_string(source)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name} does not validate:\n{}", e.emit_to_string(source)));
    module
}

/// `(member name, offset)` of each member of struct `name`, and its size.
pub fn struct_layout(module: &naga::Module, name: &str) -> (Vec<(String, u32)>, u32) {
    for (_, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name)
            && let naga::TypeInner::Struct { members, span } = &ty.inner
        {
            let offsets = members
                .iter()
                .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                .collect();
            return (offsets, *span);
        }
    }
    panic!("struct {name} not found in the shader")
}
