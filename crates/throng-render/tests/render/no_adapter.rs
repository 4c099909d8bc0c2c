//! A GPU test without an adapter fails; it never passes silently.
//!
//! The parent test runs this test binary again with `WGPU_BACKEND` naming a
//! backend this platform lacks, so that no adapter exists, and asks the
//! child to run one GPU test; that child must fail with the message that
//! says how to get a software adapter.

use std::process::Command;

use throng_tests::require_gpu;

/// Run only by [`a_gpu_test_without_an_adapter_fails`], in a child process
/// with no adapter.
#[test]
#[ignore = "run by a_gpu_test_without_an_adapter_fails in a child process"]
fn child_gpu_test() {
    let gpu = require_gpu("child_gpu_test");
    // Reached only when an adapter exists, which the parent rules out.
    panic!("found an adapter: {}", gpu.adapter_summary());
}

#[cfg(not(any(target_os = "macos", target_os = "ios")))]
#[test]
fn a_gpu_test_without_an_adapter_fails() {
    let output = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "no_adapter::child_gpu_test",
            "--ignored",
            "--nocapture",
        ])
        // Metal exists only on Apple platforms: no adapter here.
        .env("WGPU_BACKEND", "metal")
        .output()
        .expect("running the test binary again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "a GPU test with no adapter passed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("1 failed") || stderr.contains("1 failed"),
        "the child did not report one failed test:\n{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains("needs an adapter and found none")
            && stderr.contains("mesa-vulkan-drivers"),
        "the failure does not say what is missing and how to get it:\n{stderr}"
    );
}
