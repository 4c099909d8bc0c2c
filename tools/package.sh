#!/usr/bin/env bash
# Throng as a user outside this repository gets it (docs/RELEASING.md).
#
#   tools/package.sh          packages every publishable crate of the
#                             workspace and verifies each (cargo builds it
#                             from its .crate alone, against the others'
#                             packages); prints each package's size
#   tools/package.sh test     the above, then a consumer project outside
#                             the repository built against those packages
#                             (not the workspace's paths) that renders a
#                             headless frame, then `throng` installed with
#                             `cargo install --path crates/throng-cli` and
#                             run from an unrelated folder: bake a glb
#                             copied there, inspect it, render it
#
# Crates marked `publish = false` (tests, fuzz bodies, examples, the web
# page, plotting) are left out, read from `cargo metadata`; a new crate is
# packaged unless it says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# The packages' own builds (verification, the consumer, the installed CLI)
# share one target folder of their own: their profile is a user's (the
# workspace's [profile] does not travel with a package), so they cannot
# reuse the workspace's artifacts, and the three reuse each other's.
pkg_target=$root/target/package-build
# A user's build has debug info; these builds only have to succeed, and
# without it they stay a fraction of the size (CI's disk is small).
export CARGO_PROFILE_DEV_DEBUG=false
export CARGO_PROFILE_RELEASE_DEBUG=false
# Built once each: incremental state would only double the folder.
export CARGO_INCREMENTAL=0

unpublished() {
    cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] == []:
        print(p["name"])'
}

package() {
    local exclude=()
    for name in $(unpublished); do exclude+=(--exclude "$name"); done
    echo "tools/package.sh: cargo package --workspace ${exclude[*]}"
    CARGO_TARGET_DIR=$pkg_target cargo package --workspace "${exclude[@]}" --allow-dirty --offline
    echo "tools/package.sh: package sizes (compressed .crate)"
    for crate in "$pkg_target"/package/*.crate; do
        printf '  %8s  %s\n' "$(du -k "$crate" | cut -f1) KiB" "$(basename "$crate")"
    done
}

# The consumer project (tools/consumer), copied out of the repository, with
# crates.io's throng* replaced by the .crate files just packaged, unpacked.
consumer() {
    local dir
    dir=$(mktemp -d)
    cp -r tools/consumer "$dir/project"
    mkdir "$dir/crates"
    {
        echo
        echo "[patch.crates-io]"
        for crate in "$pkg_target"/package/*.crate; do
            tar -xzf "$crate" -C "$dir/crates"
            local base name
            base=$(basename "$crate" .crate)
            name=${base%-*}
            echo "$name = { path = \"$dir/crates/$base\" }"
        done
    } >>"$dir/project/Cargo.toml"
    echo "tools/package.sh: the consumer project in $dir/project"
    (
        cd "$dir/project"
        # No path into the repository but the patch's unpacked packages.
        if grep -n "$root" Cargo.toml | grep -v "$dir/crates"; then
            echo "tools/package.sh: the consumer reaches into the repository" >&2
            exit 1
        fi
        CARGO_TARGET_DIR=$pkg_target cargo run --offline --quiet -- \
            "$root/assets/khronos_Fox.glb" "$dir"
    )
    rm -rf "$dir"
}

# `throng` installed from its path, run in a folder of its own.
installed() {
    local dir
    dir=$(mktemp -d)
    echo "tools/package.sh: cargo install --path crates/throng-cli --root $dir/root"
    # --debug: CI proves the install, not the optimiser; --locked and the
    # workspace's target folder: its versions and profile, so the build
    # reuses what the tests built.
    cargo install --path crates/throng-cli --root "$dir/root" --offline --locked --debug \
        --target-dir "$root/target" --quiet
    mkdir "$dir/work"
    cp assets/khronos_Fox.glb "$dir/work/Fox.glb"
    (
        cd "$dir/work"
        local throng=$dir/root/bin/throng
        "$throng" bake Fox.glb -o fox.throng
        "$throng" inspect fox.throng >/dev/null
        "$throng" render fox.throng --instances 16 --size 128x128 -o crowd.png
        [ -s crowd.png ] || { echo "tools/package.sh: no crowd.png" >&2; exit 1; }
    )
    rm -rf "$dir"
    echo "tools/package.sh: the installed throng baked, inspected and rendered outside the repository"
}

case "${1:-}" in
    "") package ;;
    consumer) consumer ;;
    installed) installed ;;
    test)
        package
        consumer
        installed
        ;;
    *)
        echo "usage: tools/package.sh [test]" >&2
        exit 2
        ;;
esac
