//! libFuzzer's entry for the `provenance` target; the body is
//! `throng_fuzz::provenance::run`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    throng_fuzz::provenance::run(data);
});
