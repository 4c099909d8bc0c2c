//! The pillar pass's shader validates and its uniforms match the Rust
//! struct member for member.

use throng_demo::pillars::{PillarUniforms, SHADER};
use throng_tests::wgsl::{struct_layout, validate};

#[test]
fn the_pillar_shader_validates_and_matches_the_rust_struct() {
    let module = validate("pillars.wgsl", SHADER, naga::valid::Capabilities::empty());
    let (members, span) = struct_layout(&module, "Pillars");
    assert_eq!(span as usize, size_of::<PillarUniforms>());
    let offsets: Vec<usize> = members.iter().map(|m| m.1 as usize).collect();
    assert_eq!(
        offsets,
        [
            std::mem::offset_of!(PillarUniforms, clip_from_world),
            std::mem::offset_of!(PillarUniforms, light),
            std::mem::offset_of!(PillarUniforms, sun),
            std::mem::offset_of!(PillarUniforms, ambient),
        ]
    );
}
