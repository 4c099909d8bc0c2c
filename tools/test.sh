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
command -v python3 >/dev/null || need+=(python3)
# The browser test (tools/web.sh test): headless Chromium, which also ships
# the SwiftShader Vulkan driver the native reference picture is drawn with,
# and Node for playwright-core.
command -v chromium >/dev/null || need+=(chromium)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
if ((${#need[@]})); then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "tools/test.sh: installing ${need[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# Each step prints how long it took, and the run ends with the list.
declare -a times=()
step() {
    local name=$1
    shift
    echo "tools/test.sh: == $name"
    local start=$SECONDS
    "$@"
    local took=$((SECONDS - start))
    times+=("$(printf '%5d s  %s' "$took" "$name")")
    echo "tools/test.sh: == $name: ${took} s"
}
report_times() {
    echo "tools/test.sh: step times"
    printf '  %s\n' "${times[@]}"
    echo "tools/test.sh: total $SECONDS s"
}
trap report_times EXIT

export CI="${CI:-true}"
# A fresh clone gains nothing from incremental state, and it doubles the
# target folder (a CI run once ran out of disk).
[ "$CI" = true ] && export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# lavapipe complains without a runtime dir.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

step "format" cargo fmt --all -- --check
# Imports between the files of each crate run one way, down their floors.
step "floors" python3 tools/floors.py .
# Every .rs and .wgsl file the docs (Markdown and doc comments) name exists.
step "doc paths" python3 tools/doc_paths.py .
# Clippy rides on the test build: cargo runs clippy-driver (a rustc with
# the lints) for the workspace's own crates, as `cargo clippy` does, but
# with code generation, so the crates are compiled once for both, and the
# dependencies, which clippy does not lint, are not checked apart from
# their build. Every cargo command of the main workspace below keeps these
# two variables, or it would compile the crates again (cargo fingerprints
# the wrapper); the MSRV check drops them (it must be that toolchain's
# rustc).
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver)
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
# Integration tests are one binary per package (tests/<name>/main.rs with a
# module per concern), so the build links a few binaries, not a hundred.
# --all-targets: the benches and examples are linted (and built) too.
step "clippy and test build" cargo test --workspace --all-targets --no-run
# API docs build without warnings (broken or ambiguous intra-doc links);
# without the clippy wrapper, which would lint the crates a second time
# as rustdoc checks them.
step "docs" env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
step "tests (Vulkan)" cargo test --workspace

# The GPU tests again on GL (llvmpipe through EGL, headless): the backend that
# the packages of PACKAGE_WIDTH exist for. WGPU_BACKEND=gl makes an instance
# with the GL backend alone, so these tests cannot silently run on Vulkan.
# (--workspace keeps the build of the tests above: selecting packages would
# resolve features anew and rebuild the dependencies.) Modules are picked by
# name (`golden::` and so on). render's shadows module is not among them: it
# checks the shadow map by copying the depth texture to a buffer, a copy GL
# lacks (DownlevelFlags::DEPTH_TEXTURE_AND_BUFFER_COPIES); the golden images,
# drawn with shadows on, cover GL's shadows. Likewise impostor's shadows.
# Of ground's tests, GL runs the two that place agents on the ground (the
# motion pass and the steering's apply); the route around the hill is the
# flow field's, which is the CPU's, and navigation:: steers on GL already.
gl_ground=(ground::the_motion_pass_places_walkers_on_the_ground_as_the_cpu_does ground::steered_agents_stand_on_the_ground_and_never_in_a_step)
gl_render=(golden foot_ik compressed_models gpu_readback gpu_driven hidden_parts shared_frames occlusion occlusion_per_instance occlusion_pyramid occlusion_test_wgsl navigation anticipation shared_mirrors packages bad_input layers_readback layers_draw pose_cache motion simulation extra_targets threads device_loss worst_values depth_convention blend_split variety pbr morphs tangents textures impostor_wgsl)
gl() { WGPU_BACKEND=gl cargo test --workspace "$@"; }
step "tests (GL): render" gl --test render -- "${gl_render[@]/%/::}" "${gl_ground[@]}"
step "tests (GL): impostor" gl --test impostor -- capture:: impostor_draw:: impostor_materials:: fog::
step "tests (GL): cli" gl --test cli -- bench_smoke:: resource_limits:: walking_cli:: impostors::
step "tests (GL): integration" gl --test integration -- attachments:: morphs:: tangents::
step "tests (GL): app, cpu_skinned, smoke" gl --test app --test cpu_skinned --test smoke

# The web build (crates/throng-web, docs/WEB.md): the runtime crates and the
# page compile for wasm32, and the page lints clean there (the page's
# browser glue exists only on wasm32: the clippy wrapper above lints it
# while tools/web.sh builds the .wasm, where a separate `cargo clippy
# --target wasm32-unknown-unknown` checked every crate a second time); then
# the browser test: headless Chromium opens the page with WebGPU and with
# WebGL2, its pictures are compared with the native renderer's, and bad
# input must end in the page's error title.
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
step "web: build (linted) and browser test" tools/web.sh test

# The Bevy plugin (crates/throng-bevy): a workspace of its own, with the
# toolchain of its own that Bevy 0.20.1 declares (its rust-toolchain.toml,
# installed here when missing); built into the same target folder, Bevy with
# the few features the plugin needs. Without the clippy wrapper above (the
# main toolchain's clippy-driver cannot compile for another rustc): the
# clippy step lints. Its headless test runs on Vulkan: on llvmpipe GL,
# Bevy's screenshot of an image target never completes (docs/BEVY.md).
bevy_rust=$(sed -n 's/^channel = "\(.*\)"$/\1/p' crates/throng-bevy/rust-toolchain.toml)
rustup toolchain install "$bevy_rust" --profile minimal -c clippy,rustfmt
bevy_cargo() { env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS cargo "+$bevy_rust" "$@"; }
bevy=(--manifest-path crates/throng-bevy/Cargo.toml --target-dir target)
step "bevy: format" bevy_cargo fmt --manifest-path crates/throng-bevy/Cargo.toml -- --check
# Clippy and the docs take the whole Bevy workspace, the demos included
# (bevy_crowd, bevy_bench, bevy_agents: checked so they cannot rot; Bevy's
# features unify to the demos' wider set, checked once for both steps);
# the tests build the plugin alone, with its own few features. (One build
# of the whole workspace for both, the clippy wrapper riding on it, was
# measured slower on the 2-core machine: Bevy compiled with the demos'
# features took 783 s against 209 s checked plus the plugin's narrower
# build, and the docs then checked Bevy again.)
step "bevy: clippy (plugin and demos)" bevy_cargo clippy "${bevy[@]}" --workspace --all-targets -- -D warnings
bevy_docs() { RUSTDOCFLAGS="-D warnings" bevy_cargo doc "${bevy[@]}" --workspace --no-deps --quiet; }
step "bevy: docs" bevy_docs
step "bevy: tests" bevy_cargo test "${bevy[@]}"

# The crates as a user outside the repository gets them (docs/RELEASING.md):
# every publishable crate packaged and verified, a consumer project built
# against the packages (not the workspace's paths) drawing a frame, and the
# `throng` command installed and run from an unrelated folder, and
# throng-bevy built from its package (after the Bevy tests, whose Bevy it
# reuses). Then the minimum Rust the manifests declare: the published
# library crates and the command checked with that toolchain (the viewer
# declares egui's newer one; throng-bevy, Bevy's).
step "package: verify, bevy, consumer, install" tools/package.sh test
msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
rustup toolchain list | grep -q "^$msrv" || rustup toolchain install "$msrv" --profile minimal
step "rust $msrv: check" env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS cargo "+$msrv" check -p throng --features throng/bake -p throng-cli --quiet

echo "tools/test.sh: target folder $(du -sh target | cut -f1)"
