#!/usr/bin/env bash
# Throng in a browser (crates/throng-web, docs/WEB.md).
#
#   tools/web.sh build          the site in target/web/: index.html, the JS
#                               glue, the .wasm and the baked Fox
#   tools/web.sh package        the npm package: target/web-package/ and
#                               target/web-package.tgz (npm install takes it)
#   tools/web.sh consumer       only the test's last part: the package
#                               installed and driven from outside
#   tools/web.sh serve [PORT]   serves it on 127.0.0.1 (default port 8080)
#   tools/web.sh test           the browser test: headless Chromium opens the
#                               page with WebGPU and with WebGL2, reads the
#                               title contract, compares screenshots with
#                               the native renderer's pictures, opens
#                               the page with a missing and a corrupt model,
#                               and drives the packaged API from a project
#                               outside the repository (npm install)
#   tools/web.sh bench          time to first frame and fps at 1k and 10k
#                               instances, both backends
#
# Tools it needs are installed into target/web-tools/ when missing: the
# wasm32 target (rustup), wasm-bindgen's CLI pinned to Cargo.lock's
# wasm-bindgen (cargo install --locked), playwright-core (npm, driving the
# system Chromium). wasm-opt is used when it is on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

site=target/web
tools=$PWD/target/web-tools
port_default=8080
# The page's canvas in the browser test, CSS pixels at device scale 1.
test_size=(640 400)

lock_version() {
    awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

ensure_tools() {
    rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
        rustup target add wasm32-unknown-unknown
    local version
    version=$(lock_version wasm-bindgen)
    if ! "$tools/bin/wasm-bindgen" --version 2>/dev/null | grep -q " $version\$"; then
        echo "tools/web.sh: installing wasm-bindgen-cli $version into $tools"
        # --locked first; the registry mirror of some machines lacks a
        # version that wasm-bindgen-cli's own lock file names, so fall back
        # to resolving its dependencies anew (the CLI itself stays pinned).
        # --debug: an unoptimised build installs in about a third of the
        # time (CI installs it on every fresh machine), and still binds the
        # page's .wasm in seconds.
        # Without tools/test.sh's clippy wrapper: the CLI is not ours to lint.
        # Only the `wasm-bindgen` binary, without default features (rustls,
        # for the test runner's downloads): 47 s instead of 56 s to build.
        local install=(env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS cargo install --debug --quiet
            --no-default-features --bin wasm-bindgen)
        "${install[@]}" --locked wasm-bindgen-cli --version "$version" --root "$tools" ||
            "${install[@]}" wasm-bindgen-cli --version "$version" --root "$tools"
    fi
}

# The native binaries the page's build and test run (`throng`, the
# reference picture's `throng-web-reference`), built as the workspace's
# tests build them: one resolution of the whole workspace, so CI reuses the
# test build's crates. (`cargo run -p …` resolves that package's features
# alone, and wgpu's differ by package: two more builds of wgpu and of the
# crates on it.)
native_bins() {
    cargo build --workspace --all-targets
}
build() {
    ensure_tools
    native_bins
    cargo build --quiet --release --target wasm32-unknown-unknown -p throng-web --lib
    rm -rf "$site"
    mkdir -p "$site"
    "$tools/bin/wasm-bindgen" --target web --out-dir "$site" \
        target/wasm32-unknown-unknown/release/throng_web.wasm
    if command -v wasm-opt >/dev/null; then
        wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
            "$site/throng_web_bg.wasm" -o "$site/throng_web_bg.wasm"
    fi
    cp crates/throng-web/www/index.html "$site/"
    target/debug/throng bake assets/khronos_Fox.glb -o "$site/fox.throng" >/dev/null
    # The glTF the page bakes itself (?gltf=fox.glb).
    cp assets/khronos_Fox.glb "$site/fox.glb"
    local raw gz
    raw=$(stat -c %s "$site/throng_web_bg.wasm")
    gz=$(gzip -9 -c "$site/throng_web_bg.wasm" | wc -c)
    echo "tools/web.sh: built $site (wasm $raw bytes, $gz gzipped)"
}

serve() {
    local port=${1:-$port_default}
    [ -f "$site/index.html" ] || build
    echo "tools/web.sh: open http://127.0.0.1:$port/ (Ctrl-C stops)"
    exec python3 -m http.server --bind 127.0.0.1 --directory "$site" "$port"
}

ensure_browser() {
    command -v chromium >/dev/null || {
        echo "tools/web.sh: chromium is missing (tools/test.sh installs it)" >&2
        exit 1
    }
    local version
    version=$(cat tools/web/playwright-version)
    if [ ! -f "$tools/node/node_modules/playwright-core/package.json" ] ||
        ! grep -q "\"version\": \"$version\"" "$tools/node/node_modules/playwright-core/package.json"; then
        mkdir -p "$tools/node"
        npm install --silent --no-audit --no-fund --prefix "$tools/node" "playwright-core@$version"
    fi
}

# Serves a folder (default: the site) in the background on a free port
# (sets $base); stopped on exit.
servers=()
background_server() {
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 -m http.server --bind 127.0.0.1 --directory "${1:-$site}" "$port" >/dev/null 2>&1 &
    servers+=($!)
    trap 'kill "${servers[@]}" 2>/dev/null || true' EXIT
    base="http://127.0.0.1:$port"
    python3 - "$base/index.html" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1)
        break
    except OSError:
        time.sleep(0.1)
PY
}

# The npm package in target/web-package/ (package.json, the .wasm, the JS
# glue, the TypeScript declarations, a README) and packed as
# target/web-package.tgz, which `npm install` takes in any project.
package="$PWD/target/web-package"
package_tgz="$PWD/target/web-package.tgz"
make_package() {
    build
    pack
}

# The package of the site as built.
pack() {
    rm -rf "$package" "$package_tgz"
    mkdir -p "$package"
    cp "$site"/throng_web.js "$site"/throng_web.d.ts "$site"/throng_web_bg.wasm \
        "$site"/throng_web_bg.wasm.d.ts crates/throng-web/npm/README.md "$package/"
    # wasm-bindgen's JS snippets (the bake worker's starter, www/bake.js).
    cp -r "$site/snippets" "$package/"
    local version
    version=$(awk -F'"' '/^version = / { print $2; exit }' Cargo.toml)
    cat > "$package/package.json" <<JSON
{
  "name": "throng-web",
  "version": "$version",
  "description": "Crowds of skeletally animated characters on WebGPU and WebGL2: Throng's JavaScript API.",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "throng_web.js",
  "module": "throng_web.js",
  "types": "throng_web.d.ts",
  "files": ["throng_web.js", "throng_web.d.ts", "throng_web_bg.wasm", "throng_web_bg.wasm.d.ts", "snippets/", "README.md"],
  "sideEffects": ["./throng_web.js"]
}
JSON
    local packed
    packed=$(cd "$package" && npm pack --silent --pack-destination "$PWD/..")
    mv "target/$packed" "$package_tgz"
    echo "tools/web.sh: packed $package_tgz ($(stat -c %s "$package_tgz") bytes)"
}

# A project outside the repository installs the package with npm (sets
# $project); the native pictures of its scene on each backend's record
# path go to OUT. Headless Chromium drives the API there
# (tools/web/consumer.html, from browser.mjs).
prepare_consumer() {
    local out=$1
    project=$(mktemp -d "${TMPDIR:-/tmp}/throng-consumer.XXXXXX")
    cp tools/web/consumer.html examples/web/index.html "$site/fox.throng" "$site/fox.glb" "$project/"
    (cd "$project" && echo '{ "name": "consumer", "private": true }' > package.json &&
        npm install --silent --no-audit --no-fund "$package_tgz")
    [ -f "$project/node_modules/throng-web/throng_web_bg.wasm" ] || {
        echo "tools/web.sh: npm did not install the package into $project" >&2
        return 1
    }
    # Each backend's picture against the native one on its record path:
    # WebGPU's GPU-driven path, WebGL2's packaged path.
    local backend path
    for backend in webgpu webgl2; do
        path=gpu-driven
        [ "$backend" = webgl2 ] && path=packaged
        VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json WGPU_BACKEND=vulkan \
            target/debug/throng-web-reference consumer "$site/fox.throng" \
            "$out/consumer-native-$backend.png" "${test_size[@]}" "$path"
    done
}

# The consumer's pictures against the native ones, and the Fox baked in the
# browser against the native bake: the skinned positions of every clip at
# a few times, within the bake's error bound.
check_consumer() {
    local out=$1 failed=0 backend
    rm -rf "$project"
    for backend in webgpu webgl2; do
        [ -f "$out/consumer-$backend.png" ] || { failed=1; continue; }
        target/debug/throng-web-reference compare "$out/consumer-native-$backend.png" \
            "$out/consumer-$backend.png" "$out/consumer-$backend-difference.png" || failed=1
    done
    if [ -f "$out/fox-web.throng" ]; then
        python3 tools/web/same_frames.py target/debug/throng "$site/fox.throng" "$out/fox-web.throng" || failed=1
    else
        failed=1
    fi
    return $failed
}

run_test() {
    build
    ensure_browser
    local out=target/web-test
    rm -rf "$out"
    mkdir -p "$out"
    # Bad models for the error cases, served beside the good one.
    head -c 4096 "$site/fox.throng" > "$site/truncated.throng"
    head -c 5000 "$site/fox.glb" > "$site/truncated.glb"
    python3 - "$site/fox.throng" "$site/old-version.throng" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
# The format version follows the 8-byte magic (docs/FORMAT.md).
struct.pack_into("<I", data, 8, 1)
open(sys.argv[2], "wb").write(data)
PY
    # Two bodies baked with --shared-clips: their frames in one file beside
    # them (the page fetches it); one body alone, without it (an error).
    local bodies
    bodies=$(mktemp -d)
    cp assets/khronos_Fox.glb "$bodies/a.glb"
    cp assets/khronos_Fox.glb "$bodies/b.glb"
    target/debug/throng bake "$bodies/a.glb" "$bodies/b.glb" -o "$site/shared" \
        --shared-clips --no-impostors >/dev/null
    cp "$site/shared/a.throng" "$site/alone.throng"
    rm -rf "$bodies"
    # The flat scene (its crowd stands out from the ground: the pixel check
    # below proves it is drawn) on both backends, then the default scene,
    # the herd on the demo's terrain, on WebGPU.
    local query="instances=400&time=1.25&seed=1&ground=flat"
    local terrain_query="instances=400&time=1.25&seed=1"
    # The native picture is drawn on the rasteriser the browser draws with:
    # SwiftShader's Vulkan driver, which Chromium ships. (Against lavapipe
    # the silhouettes' edge pixels differ; docs/WEB.md gives the figures.)
    local icd=/usr/lib/chromium/vk_swiftshader_icd.json
    [ -f "$icd" ] || { echo "tools/web.sh: $icd is missing (Debian's chromium ships it)" >&2; exit 1; }
    VK_ICD_FILENAMES=$icd WGPU_BACKEND=vulkan \
        target/debug/throng-web-reference \
        render "$site/fox.throng" "$out/native.png" "${test_size[@]}" "$query" 2>&1 | tee "$out/native.log"
    VK_ICD_FILENAMES=$icd WGPU_BACKEND=vulkan \
        target/debug/throng-web-reference \
        render "$site/fox.throng" "$out/native-terrain.png" "${test_size[@]}" "$terrain_query"
    grep -q "on SwiftShader" "$out/native.log" || {
        echo "tools/web.sh: the native picture was not drawn on SwiftShader" >&2
        exit 1
    }
    pack
    prepare_consumer "$out"
    background_server "$project"
    local consumer_base=$base
    background_server
    local failed=0
    node tools/web/browser.mjs test "$base" "$out" "${test_size[@]}" "$query" "$terrain_query" \
        "$consumer_base" || failed=1
    # Each picture shows the crowd (a blank canvas beside a blank native
    # picture would compare equal).
    for picture in native webgpu webgl2; do
        python3 tools/crowd_pixels.py "$out/$picture.png" --min-share 0.05 || failed=1
    done
    for backend in webgpu webgl2; do
        target/debug/throng-web-reference \
            compare "$out/native.png" "$out/$backend.png" "$out/$backend-difference.png" || failed=1
    done
    target/debug/throng-web-reference compare "$out/native-terrain.png" \
        "$out/webgpu-terrain.png" "$out/webgpu-terrain-difference.png" || failed=1
    # Occlusion culling on the page: the eye camera's picture with it
    # equals the one without it.
    target/debug/throng-web-reference compare "$out/webgpu-eye-unculled.png" \
        "$out/webgpu-eye.png" "$out/webgpu-eye-difference.png" || failed=1
    check_consumer "$out" || failed=1
    return $failed
}

run_bench() {
    make_package
    ensure_browser
    local raw gz
    raw=$(stat -c %s "$site/throng_web_bg.wasm")
    gz=$(gzip -9 -c "$site/throng_web_bg.wasm" | wc -c)
    echo "wasm: $raw bytes ($((raw / 1024)) KiB), gzip -9 $gz bytes ($((gz / 1024)) KiB); npm package (.tgz): $(stat -c %s "$package_tgz") bytes"
    echo
    background_server
    node tools/web/browser.mjs bench "$base"
}

export THRONG_WEB_TOOLS="$tools"
# lavapipe (the native reference picture) complains without a runtime dir.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
case ${1:-} in
    build) build ;;
    package) make_package ;;
    consumer)
        make_package
        ensure_browser
        mkdir -p target/web-test
        prepare_consumer target/web-test
        background_server "$project"
        failed=0
        node tools/web/browser.mjs consumer "$base" target/web-test "${test_size[@]}" || failed=1
        check_consumer target/web-test || failed=1
        exit $failed
        ;;
    serve) serve "${2:-}" ;;
    test) run_test ;;
    bench) run_bench ;;
    *)
        echo "usage: tools/web.sh build | package | consumer | serve [PORT] | test | bench" >&2
        exit 2
        ;;
esac
