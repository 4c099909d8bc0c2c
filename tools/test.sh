#!/usr/bin/env bash
# Throng's whole test suite, from a fresh clone on Debian or Ubuntu.
#
# Installs what the GPU tests need when it is missing — lavapipe (Mesa's
# software Vulkan driver), the Vulkan loader, Xvfb for the viewer smoke test —
# then checks formatting and lints and runs every test with CI semantics: a
# GPU test that finds no adapter fails, it never skips.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
compgen -G "/usr/share/vulkan/icd.d/lvp_icd*.json" >/dev/null || need+=(mesa-vulkan-drivers)
ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1' || need+=(libvulkan1)
command -v xvfb-run >/dev/null || need+=(xvfb)
command -v xauth >/dev/null || need+=(xauth)
if ((${#need[@]})); then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "tools/test.sh: installing ${need[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

export CI="${CI:-true}"
# lavapipe complains without a runtime dir.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
