//! libFuzzer's entry for the `wgsl` target; the body is
//! `throng_fuzz::wgsl::run`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    throng_fuzz::wgsl::run(data);
});
