#!/usr/bin/env bash
# Throng's whole test suite, from a fresh clone on Debian or Ubuntu.
#
# Installs what the GPU tests need when it is missing — lavapipe (Mesa's
# software Vulkan driver) and the Vulkan loader, llvmpipe through EGL for the
# GL backend, Xvfb for the viewer smoke test — then checks formatting and
# lints, runs every test (GPU tests on Vulkan), and runs the GPU tests again
# on the GL backend, the downlevel / WebGL2-class path. A GPU test that finds
# no adapter fails; it never skips.
set -euo pipefail
cd "$(dirname "$0")/.."

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
need=()
for pkg in mesa-vulkan-drivers libvulkan1 libegl1 libegl-mesa0 libgl1-mesa-dri; do
    installed "$pkg" || need+=("$pkg")
done
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
# A fresh clone gains nothing from incremental state, and it doubles the
# target folder (a CI run once ran out of disk).
[ "$CI" = true ] && export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# lavapipe complains without a runtime dir.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# API docs build without warnings (broken or ambiguous intra-doc links).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace

# The GPU tests again on GL (llvmpipe through EGL, headless): the backend that
# the packages of PACKAGE_WIDTH exist for. WGPU_BACKEND=gl makes an instance with the GL
# backend alone, so these tests cannot silently run on Vulkan. (--workspace
# keeps the build of the line above: selecting packages would resolve
# features anew and rebuild the dependencies.)
# shadows.rs is not among them: it checks the shadow map by copying the depth
# texture to a buffer, a copy GL lacks (DownlevelFlags::DEPTH_TEXTURE_AND_
# BUFFER_COPIES); the golden images, drawn with shadows on, cover GL's shadows.
echo "tools/test.sh: GPU tests on the GL backend"
gl_tests=(golden gpu_readback gpu_driven packages bad_input cpu_skinned attachments bench_smoke resource_limits embedding capture impostors impostor_draw impostor_wgsl layers_readback layers_draw pose_cache motion simulation flock walking_cli extra_targets threads device_loss worst_values smoke depth_convention fog blend_split variety pbr morphs impostor_materials tangents textures)
WGPU_BACKEND=gl cargo test --workspace "${gl_tests[@]/#/--test=}"

# The Bevy plugin (crates/throng-bevy): a workspace of its own, because Bevy
# 0.20.1 declares rust-version 1.97.1 and this toolchain (1.95) builds it but
# only with --ignore-rust-version; built into the same target folder, Bevy
# with the few features the plugin needs. Its headless test runs on Vulkan:
# on llvmpipe GL, Bevy's screenshot of an image target never completes
# (docs/DESIGN.md, "Bevy").
echo "tools/test.sh: the Bevy plugin"
bevy=(--manifest-path crates/throng-bevy/Cargo.toml --ignore-rust-version --target-dir target)
cargo fmt --manifest-path crates/throng-bevy/Cargo.toml -- --check
cargo clippy "${bevy[@]}" --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc "${bevy[@]}" --no-deps --quiet
cargo test "${bevy[@]}"
echo "tools/test.sh: target folder $(du -sh target | cut -f1)"
