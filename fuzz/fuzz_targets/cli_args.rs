//! libFuzzer's entry for the `cli_args` target; the body is
//! `throng_fuzz::cli_args::run`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    throng_fuzz::cli_args::run(data);
});
