//! libFuzzer's entry for the `throng_file` target; the body is
//! `throng_fuzz::throng_file::run`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    throng_fuzz::throng_file::run(data);
});
