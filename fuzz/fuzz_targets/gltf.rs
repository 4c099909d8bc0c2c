//! libFuzzer's entry for the `gltf` target; the body is
//! `throng_fuzz::gltf::run`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    throng_fuzz::gltf::run(data);
});
