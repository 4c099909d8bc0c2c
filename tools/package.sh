#!/usr/bin/env bash
# Throng as a user outside this repository gets it (docs/RELEASING.md).
#
#   tools/package.sh          packages every publishable crate of the
#                             workspace (without cargo's per-crate
#                             verification: `consumer` builds them all);
#                             prints each package's size
#   tools/package.sh test     the above, then a consumer project outside
#                             the repository built against those packages
#                             (not the workspace's paths), in one workspace
#                             with every package unpacked from its .crate,
#                             so each builds from its package alone (what
#                             cargo's verification checks); the consumer
#                             renders a headless frame; then `throng` installed with
#                             `cargo install --path crates/throng-cli` and
#                             run from an unrelated folder: bake a glb
#                             copied there, inspect it, render it (the
#                             picture must show the crowd); and throng-bevy
#                             (a workspace of its own) packaged, built from
#                             its package against them and run: one
#                             headless frame of Foxes (tools/consumer-bevy)
#
# Crates marked `publish = false` (tests, fuzz bodies, examples, the web
# page, plotting) are left out, read from `cargo metadata`; a new crate is
# packaged unless it says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# The packages' own builds (verification, the consumer, throng-bevy's) go
# into the workspace's target folder with the workspace's [profile.dev] given
# on the command line (a package's manifest does not carry it), so every
# dependency built for the tests with the same version and features is
# reused rather than built again. The .crate files land in target/package/.
pkg=$root/target/package
# One version for every crate ([workspace.package]).
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
# A manifest's [profile.dev] (with its [profile.dev.package.*]) as --config
# arguments, one per line.
profile_args() {
    python3 -c '
import json, sys, tomllib
dev = tomllib.load(open(sys.argv[1], "rb"))["profile"]["dev"]
for key, value in dev.items():
    tables = value.items() if key == "package" else []
    for name, table in tables:
        for k, v in table.items():
            print("--config")
            print(f"profile.dev.package.{json.dumps(name)}.{k}={json.dumps(v)}")
    if key != "package":
        print("--config")
        print(f"profile.dev.{key}={json.dumps(value)}")
' "$1"
}
mapfile -t ws_profile < <(profile_args Cargo.toml)
export CARGO_INCREMENTAL=0

# cargo unpacks each package it verifies into its registry's src folder,
# and never again for the same name and version, nor does it look at a
# registry package's sources again once built: a package of this version
# verified earlier on this machine (an older tree) would be compiled, or
# its build reused, in place of this one. A fresh CI machine has none; a
# local rerun drops them and what was built of Throng's crates first.
shopt -s nullglob
stale=("${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/throng*-"$version")
shopt -u nullglob
if [ ${#stale[@]} -gt 0 ]; then
    rm -rf "${stale[@]}" "$root"/target/debug/.fingerprint/throng*
fi

# The main workspace's crates marked `publish = false` (with `unpublished`)
# or not (with `published`).
members() {
    cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if (p["publish"] == []) == (sys.argv[1] == "unpublished"):
        print(p["name"])' "$1"
}
unpublished() { members unpublished; }

# One line of the size list: a .crate's compressed size and name.
print_size() {
    printf '  %8s  %s\n' "$(du -k "$1" | cut -f1) KiB" "$(basename "$1")"
}

# Unpacks the packages of the crates named into DIR/crates and prints the
# [patch.crates-io] section that points crates.io's names at them.
unpack_patched() {
    local dir=$1 name
    shift
    mkdir -p "$dir/crates"
    echo
    echo "[patch.crates-io]"
    for name in "$@"; do
        tar -xzf "$pkg/$name-$version.crate" -C "$dir/crates"
        echo "$name = { path = \"$dir/crates/$name-$version\" }"
    done
}

package() {
    local exclude=()
    for name in $(unpublished); do exclude+=(--exclude "$name"); done
    echo "tools/package.sh: cargo package --workspace ${exclude[*]} --no-verify"
    # --no-verify: cargo's verification builds each package in a
    # resolution of its own, so the crates below it were compiled once per
    # package that depends on them, under as many feature sets (a CI run
    # built throng-render four times and wgpu twice here, 5 of the step's
    # 9 minutes); `consumer` builds every package from its .crate once.
    cargo package --workspace "${exclude[@]}" --allow-dirty --offline --no-verify
    echo "tools/package.sh: package sizes (compressed .crate)"
    for crate in "$pkg"/*.crate; do print_size "$crate"; done
}

# throng-bevy, a workspace of its own with a toolchain of its own (Bevy
# declares a newer rust-version than the main workspace's toolchain; its
# rust-toolchain.toml): packaged against the Throng packages above, then
# verified as cargo would, by building it from its .crate in a folder outside
# the repository with crates.io's Throng crates patched to those packages —
# with its toolchain, the Bevy workspace's lock file and its profile, and
# without tools/test.sh's clippy wrapper (the main toolchain's), so the Bevy
# its tests built is reused (CI runs this after them).
bevy() {
    local patches=() name bevy_profile bevy_rust
    mapfile -t bevy_profile < <(profile_args crates/throng-bevy/Cargo.toml)
    bevy_rust=$(sed -n 's/^channel = "\(.*\)"$/\1/p' crates/throng-bevy/rust-toolchain.toml)
    local cargo_bevy=(env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS cargo "+$bevy_rust")
    for name in throng-core throng-crowd throng-render; do
        # Unpacked beside its .crate (cargo's verification did this; the
        # packages are made without it).
        rm -rf "${pkg:?}/$name-$version"
        tar -xzf "$pkg/$name-$version.crate" -C "$pkg"
        patches+=(--config "patch.crates-io.$name.path=\"$pkg/$name-$version\"")
    done
    # The patch is for the package's resolution only: the workspace's lock
    # file stays as it is.
    cp crates/throng-bevy/Cargo.lock "$pkg/bevy.lock"
    "${cargo_bevy[@]}" package --manifest-path crates/throng-bevy/Cargo.toml --target-dir "$root/target" \
        -p throng-bevy --no-verify --allow-dirty --offline "${patches[@]}"
    cp "$pkg/bevy.lock" crates/throng-bevy/Cargo.lock
    print_size "$pkg/throng-bevy-$version.crate"
    # Built as a dependency of a small project outside the repository
    # (tools/consumer-bevy), which also depends on what throng-bevy's tests
    # do (throng-bake, image), so features unify as in the tests' build and
    # Bevy is not built twice; then run: one headless frame of Foxes that
    # must show in the picture.
    local dir
    dir=$(mktemp -d)
    cp -r tools/consumer-bevy "$dir/project"
    unpack_patched "$dir" throng-core throng-crowd throng-render throng-bake throng-bevy \
        >>"$dir/project/Cargo.toml"
    cp "$pkg/bevy.lock" "$dir/project/Cargo.lock"
    mkdir "$dir/scratch"
    echo "tools/package.sh: building and running throng-bevy from its package in $dir"
    (
        cd "$dir/project"
        "${cargo_bevy[@]}" run --offline --quiet \
            --target-dir "$root/target" "${bevy_profile[@]}" -- \
            "$root/assets/khronos_Fox.glb" "$dir/scratch"
    )
    rm -rf "$dir"
    echo "tools/package.sh: throng-bevy builds from its package and draws the crowd"
}

# The consumer project (tools/consumer), copied out of the repository, in a
# workspace with every package just made, unpacked from its .crate, and
# crates.io's throng* patched to them: building the workspace builds each
# package from its own files (the viewer, a binary alone, included), then
# the consumer runs.
consumer() {
    local dir
    dir=$(mktemp -d)
    cp -r tools/consumer "$dir/project"
    # The consumer's own [workspace] gives way to the one around it.
    sed -i '/^\[workspace\]$/d' "$dir/project/Cargo.toml"
    # The repository's lock file and a member that only adds features
    # (tools/consumer-unify): the dependencies resolve as in the test
    # build, which compiled them already, so only the packages are built.
    cp -r tools/consumer-unify "$dir/unify"
    cp Cargo.lock "$dir/Cargo.lock"
    # The packages `package` made (not throng-bevy's, nor any other .crate
    # an earlier run left in target/package).
    local names
    mapfile -t names < <(members published)
    {
        echo "[workspace]"
        echo "resolver = \"3\""
        echo "members = [\"project\", \"unify\", \"crates/*\"]"
        unpack_patched "$dir" "${names[@]}"
    } >"$dir/Cargo.toml"
    echo "tools/package.sh: the consumer project in $dir/project, beside ${#names[@]} packages"
    (
        cd "$dir"
        # No path into the repository but the patch's unpacked packages.
        if grep -n "$root" Cargo.toml project/Cargo.toml | grep -v "$dir/crates"; then
            echo "tools/package.sh: the consumer reaches into the repository" >&2
            exit 1
        fi
        cargo build --workspace --offline --quiet --target-dir "$root/target" "${ws_profile[@]}"
        # The binary that build made (`cargo run -p` would resolve the
        # consumer's features alone and build again what they change).
        "$root/target/debug/throng-consumer" "$root/assets/khronos_Fox.glb" "$dir"
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
        # A blank or background-only picture fails: the crowd must show.
        python3 "$root/tools/crowd_pixels.py" crowd.png --min-share 0.02
    )
    rm -rf "$dir"
    echo "tools/package.sh: the installed throng baked, inspected and rendered outside the repository"
}

case "${1:-}" in
    "") package ;;
    consumer) consumer ;;
    bevy) bevy ;;
    installed) installed ;;
    test)
        package
        consumer
        bevy
        installed
        ;;
    *)
        echo "usage: tools/package.sh [test|consumer|bevy|installed]" >&2
        exit 2
        ;;
esac
