#!/usr/bin/env bash
# Reproduces every figure in docs/BENCHMARKS.md.
#
#   tools/bench.sh             lavapipe matrix, criterion benches, chart: every
#                              figure the doc publishes today
#   tools/bench.sh lavapipe    the matrix on this machine's adapter (lavapipe
#                              where there is no GPU) at sizes that finish in
#                              minutes on 2 cores
#   tools/bench.sh criterion   the CPU benches (crowd update + cull + records,
#                              clip sampling, palettes, baking)
#   tools/bench.sh gpu         the full matrix for a real GPU: Fox at 1k, 10k,
#                              100k and 1M instances per mode at 1920x1080
#   tools/bench.sh gpu-driven  the GPU-driven path's figures (docs/BENCHMARKS.md,
#                              "The GPU-driven path"): Fox with meshopt LODs at
#                              10k, 100k and 1M, idle, 1 % and 10 % changing and
#                              with shadows, at 1920x1080; then the criterion
#                              benches of its CPU work (needs a toolchain, or
#                              skip them with THRONG_NO_CRITERION=1)
#   tools/bench.sh pose-cache  the pose cache's figures (docs/BENCHMARKS.md,
#                              "The pose cache"): 3,000 Foxes at 320x180 against
#                              both static floors and per-vertex skinning; the
#                              default chain (meshopt LODs + impostor) at 10k and
#                              100k with the ground camera, with and without
#                              shadows, and with a budget that holds only the
#                              meshopt LODs; on lavapipe sizes, or GPU ones with
#                              POSE_CACHE_GPU=1 (100k and 1M at 1920x1080)
#   tools/bench.sh walking     the moving crowds' figures (docs/BENCHMARKS.md,
#                              "Moving crowds"): the default chain at 10k, 100k
#                              and 1M, idle, walking 100 % and changing 100 %,
#                              ground camera, prepare_ms; then the criterion
#                              "batched writes" group (THRONG_NO_CRITERION=1
#                              skips it)
#   tools/bench.sh steering    the built-in steering's GPU passes against the
#                              flock hook, and the flow field's CPU cost
#                              (docs/BENCHMARKS.md, "Steering").
#   tools/bench.sh headline    the headline frame (docs/BENCHMARKS.md, "The
#                              headline"): the default chain (meshopt LODs +
#                              impostor) at 100k and 1M with the ground camera
#                              at 1920x1080, PBR, Lambert, varied and pose-cache
#                              modes; with shadows; walking; then 256x144 and
#                              3840x2160 (is the frame vertex- or fragment-bound?)
#   tools/bench.sh terrain     crowds on real ground (docs/BENCHMARKS.md,
#                              "Terrain and foot IK"): 100k walkers on the
#                              plane, on the terrain, and with foot IK for the
#                              nearest 100, 1,000 and 10,000; lavapipe sizes,
#                              or GPU ones with TERRAIN_GPU=1
#   tools/bench.sh occlusion   occlusion culling and shadows by LOD
#                              (docs/BENCHMARKS.md, "Occlusion culling"): the
#                              default chain, pose cache, occlusion on and off
#                              in one run from the eye and ground cameras, and
#                              from the eye with shadows (casters at the view's
#                              LOD and at the default scale; from the light
#                              too); per-pass GPU times in the JSON; lavapipe
#                              sizes (100k at 640x360), or GPU ones with
#                              OCCLUSION_GPU=1 (100k and 1M at 1920x1080)
#   tools/bench.sh bake        the bake pipeline's figures (docs/BENCHMARKS.md,
#                              "Bake time and file size"): default and --no-impostors
#                              bakes of the Fox, the Woman and CesiumMan (3 and
#                              2 runs, time and file size), the error-bounded
#                              Woman on 1 and 2 threads, and a folder of every
#                              bundled model cold and warm; BASE=path/to/throng
#                              times an older binary beside it (its folder bake
#                              one model after another)
#   tools/bench.sh mixed       bodies of one build and hidden outfits
#                              (docs/BENCHMARKS.md, "One bone texture for many
#                              bodies", "Hidden outfits"): four Foxes of other
#                              proportions baked with --shared-clips and drawn
#                              as one mixed crowd in outfits
#                              (docs/mixed-crowd.png, the README's picture),
#                              then the outfits bench at 1k and 3k
#   tools/bench.sh plot        redraws docs/bench.svg (and docs/bench-gpu.svg
#                              when GPU results exist) from docs/bench-data/
#
# Results go to docs/bench-data/: <name>.json (`throng bench --json`, schema
# throng-bench/1), <name>.txt (the printed table, headed by the commit and
# date). THRONG=path/to/throng runs a prebuilt release binary instead of
# building one (e.g. on a GPU machine with no Rust toolchain); the plot step
# needs THRONG_PLOT or a toolchain likewise.
set -euo pipefail
cd "$(dirname "$0")/.."

data=docs/bench-data
mkdir -p "$data"
# lavapipe complains without a runtime dir.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
# The commit, in the names of the reports that keep one per commit.
tag="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
commit="$tag"
git diff --quiet HEAD -- 2>/dev/null || commit="$commit (with uncommitted changes)"
# Timings on a shared machine are only as good as its quiet: the load average
# before and after each run goes into the output.
header() { echo "# commit $commit, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
footer() { echo "# finished $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"; }

model=assets/khronos_Fox.glb
modes=gpu-driven,baked,baked-unbounded,static,cpu-skinned

build() {
    if [ -z "${THRONG:-}" ] || [ -z "${THRONG_PLOT:-}" ]; then
        cargo build --release -p throng-cli -p throng-plot
    fi
    THRONG="${THRONG:-target/release/throng}"
    THRONG_PLOT="${THRONG_PLOT:-target/release/throng-plot}"
}

# Bakes the model's default LOD chain to $lod (the caller's `local lod`),
# for a report to bench and then remove.
bake_default_lod() {
    build
    lod="$data/fox-default.throng"
    "$THRONG" bake "$model" -o "$lod" >/dev/null
}

# On lavapipe the cost follows vertices: Fox (1,728 vertices) at 10,000
# instances is several seconds a frame, so cells stop after 40 s of frames.
lavapipe() {
    build
    { header; "$THRONG" bench "$model" --mode "$modes" \
        --instances 10,100,1000,3000,10000 --size 640x360 \
        --warmup 3 --frames 10 --max-seconds 40 \
        --json "$data/lavapipe-fox.json"; footer; } | tee "$data/lavapipe-fox.txt"
}

# The published GPU matrix. cpu-skinned at 1M instances is a million draws and
# seconds of CPU a frame; --max-seconds keeps every cell to a minute.
gpu() {
    build
    { header; "$THRONG" bench "$model" --mode "$modes" \
        --instances 1000,10000,100000,1000000 --size 1920x1080 \
        --warmup 10 --frames 60 --max-seconds 60 \
        --json "$data/gpu-fox.json"; footer; } | tee "$data/gpu-fox.txt"
}

gpu_driven() {
    build
    local lod="$data/fox-lod.throng"
    "$THRONG" bake "$model" --lod-ratios 0.5,0.2 -o "$lod" >/dev/null
    local cells=(--instances 10000,100000,1000000 --size 1920x1080 --warmup 3 --frames 20 --max-seconds 10)
    {
        header
        "$THRONG" bench "$lod" --mode gpu-driven,baked-unbounded,baked "${cells[@]}" \
            --json "$data/gpu-driven-$tag-idle.json"
        for c in 1 10; do
            "$THRONG" bench "$lod" --mode gpu-driven,baked-unbounded "${cells[@]}" --changing "$c" \
                --json "$data/gpu-driven-$tag-change$c.json"
        done
        "$THRONG" bench "$lod" --mode gpu-driven,baked-unbounded,baked "${cells[@]}" --shadows \
            --json "$data/gpu-driven-$tag-shadows.json"
        footer
    } | tee "$data/gpu-driven-$tag.txt"
    rm -f "$lod"
    if [ -z "${THRONG_NO_CRITERION:-}" ]; then
        { header
          cargo bench -p throng-render --bench gpu_driven_cpu 2>&1
          cargo bench -p throng-tests --bench crowd -- "idle and changing" 2>&1
          footer; } | tee "$data/criterion-gpu-driven-$tag.txt"
    fi
}

pose_cache() {
    local lod sizes counts
    bake_default_lod
    if [ -n "${POSE_CACHE_GPU:-}" ]; then
        sizes=1920x1080 counts=100000,1000000
    else
        sizes=640x360 counts=10000,100000
    fi
    {
        header
        "$THRONG" bench "$model" --mode static,static-gpu-driven,gpu-driven,pose-cache \
            --instances 3000 --size 320x180 --warmup 3 --frames 20 \
            --json "$data/pose-cache-$tag-3000.json"
        "$THRONG" bench "$lod" --camera ground --mode gpu-driven,pose-cache,static-gpu-driven \
            --instances "$counts" --size "$sizes" --warmup 2 --frames 10 --max-seconds 60 \
            --json "$data/pose-cache-$tag-ground.json"
        "$THRONG" bench "$lod" --camera ground --shadows --mode gpu-driven,pose-cache \
            --instances "$counts" --size "$sizes" --warmup 2 --frames 10 --max-seconds 60 \
            --json "$data/pose-cache-$tag-ground-shadows.json"
        # What the far LODs gain alone: a budget that holds the Fox's meshopt
        # LODs (1.6 MiB) but not LOD 0 (13.6 MiB).
        "$THRONG" bench "$lod" --camera ground --mode pose-cache --pose-cache-budget 2MiB \
            --instances "$counts" --size "$sizes" --warmup 2 --frames 10 --max-seconds 60 \
            --json "$data/pose-cache-$tag-ground-far-lods.json"
        footer
    } | tee "$data/pose-cache-$tag.txt"
    rm -f "$lod"
}

# The figure a user asks first: what does a crowd of the default chain cost
# from where a player stands? Meant for a GPU (THRONG=prebuilt binary there).
headline() {
    local lod
    bake_default_lod
    local cells=(--instances 100000,1000000 --warmup 3 --frames 20 --max-seconds 8 --camera ground)
    {
        header
        "$THRONG" bench "$lod" "${cells[@]}" --size 1920x1080 --mode gpu-driven,lambert,varied,pose-cache \
            --json "$data/headline-$tag.json"
        "$THRONG" bench "$lod" "${cells[@]}" --size 1920x1080 --mode gpu-driven,pose-cache --shadows \
            --json "$data/headline-$tag-shadows.json"
        "$THRONG" bench "$lod" "${cells[@]}" --size 1920x1080 --mode gpu-driven,pose-cache --walking 100 \
            --json "$data/headline-$tag-walking.json"
        "$THRONG" bench "$lod" "${cells[@]}" --size 256x144 --mode gpu-driven,pose-cache \
            --json "$data/headline-$tag-256x144.json"
        "$THRONG" bench "$lod" "${cells[@]}" --size 3840x2160 --mode gpu-driven \
            --json "$data/headline-$tag-3840x2160.json"
        footer
    } | tee "$data/headline-$tag.txt"
    rm -f "$lod"
}

occlusion() {
    local lod cam cells
    bake_default_lod
    if [ -n "${OCCLUSION_GPU:-}" ]; then
        cells=(--instances 100000,1000000 --size 1920x1080 --warmup 3 --frames 20 --max-seconds 8)
    else
        cells=(--instances 100000 --size 640x360 --warmup 3 --frames 8)
    fi
    {
        header
        for cam in eye ground; do
            "$THRONG" bench "$lod" --mode pose-cache "${cells[@]}" --camera "$cam" \
                --occlusion both --json "$data/occlusion-$tag-$cam.json"
        done
        "$THRONG" bench "$lod" --mode pose-cache "${cells[@]}" --camera eye --shadows \
            --caster-lod-scale 1 --occlusion both --json "$data/occlusion-$tag-eye-shadows-lod1.json"
        "$THRONG" bench "$lod" --mode pose-cache "${cells[@]}" --camera eye --shadows \
            --occlusion both --json "$data/occlusion-$tag-eye-shadows.json"
        "$THRONG" bench "$lod" --mode pose-cache "${cells[@]}" --camera eye --shadows \
            --shadow-occlusion --json "$data/occlusion-$tag-eye-shadows-light.json"
        footer
    } | tee "$data/occlusion-$tag.txt"
    rm -f "$lod"
}

walking() {
    local lod n how
    bake_default_lod
    {
        header
        for n in 10000 100000 1000000; do
            for how in "walking 0" "walking 100" "changing 100"; do
                set -- $how
                "$THRONG" bench "$lod" --mode gpu-driven --instances "$n" --size 160x90 \
                    --camera ground --frames 8 --warmup 3 --"$1" "$2" \
                    --json "$data/walking-$tag-$1_$2_$n.json"
            done
        done
        footer
    } | tee "$data/walking-$tag.txt"
    rm -f "$lod"
    if [ -z "${THRONG_NO_CRITERION:-}" ]; then
        { header
          cargo bench -p throng-tests --bench crowd -- "batched writes" 2>&1
          footer; } | tee "$data/criterion-batched-writes-$tag.txt"
    fi
}

# Steering (docs/BENCHMARKS.md, "Steering"): the built-in steering's
# simulation passes against the flock hook at 10k and 100k agents (1M with
# STEER_AGENTS=10000,100000,1000000 on a GPU), and the flow field's CPU cost
# at 256² and 1024² cells (criterion).
steering() {
    cargo build --release -p throng-examples --example steer_bench
    { header
      target/release/examples/steer_bench --agents "${STEER_AGENTS:-10000,100000}" --frames 12
      footer; } | tee "$data/steering-$tag.txt"
    if [ -z "${THRONG_NO_CRITERION:-}" ]; then
        { header
          cargo bench -p throng-tests --bench navigation 2>&1
          footer; } | tee "$data/criterion-navigation-$tag.txt"
    fi
}

# Seconds `$@` takes (its output in $scratch/last.txt).
seconds() {
    local s e
    s=$(date +%s.%N)
    "$@" >"$scratch/last.txt" 2>&1
    e=$(date +%s.%N)
    echo "$e - $s" | bc
}

bake_timings() {
    local who="$1" bin="$2" force="$3" m x rep th
    for m in khronos_Fox.glb gszauer_Woman.gltf khronos_CesiumMan.gltf; do
        for rep in 1 2 3; do
            x=$(seconds "$bin" bake "assets/$m" -o "$scratch/$who-$m.throng" $force)
            echo "$m $who default: $x s, $(grep -oE 'captured in [0-9]+ ms' "$scratch/last.txt"), file $(stat -c %s "$scratch/$who-$m.throng") B"
        done
        for rep in 1 2; do
            x=$(seconds "$bin" bake "assets/$m" -o "$scratch/$who-n-$m.throng" --no-impostors $force)
            echo "$m $who --no-impostors: $x s, file $(stat -c %s "$scratch/$who-n-$m.throng") B"
        done
    done
    for th in 1 2; do
        for rep in 1 2 3; do
            x=$(RAYON_NUM_THREADS=$th seconds "$bin" bake assets/gszauer_Woman.gltf \
                -o "$scratch/w.throng" --no-impostors --no-lods $force)
            echo "Woman error-bounded --no-impostors --no-lods, $who, RAYON_NUM_THREADS=$th: $x s"
        done
    done
}

bake() {
    build
    scratch="$(mktemp -d)"
    {
        header
        if [ -n "${BASE:-}" ]; then
            bake_timings before "$BASE" ""
            local s e m
            s=$(date +%s.%N)
            for m in assets/*.gltf assets/*.glb; do
                "$BASE" bake "$m" -o "$scratch/before/$(basename "${m%.*}").throng" >/dev/null 2>&1 ||
                    { mkdir -p "$scratch/before"; "$BASE" bake "$m" -o "$scratch/before/$(basename "${m%.*}").throng" >/dev/null; }
            done
            e=$(date +%s.%N)
            echo "folder before (one bake after another): $(echo "$e - $s" | bc) s"
        fi
        bake_timings after "$THRONG" --force
        for run in cold warm warm; do
            echo "folder $run: $(seconds "$THRONG" bake assets -o "$scratch/after") s; $(tail -1 "$scratch/last.txt")"
        done
        footer
    } | tee "$data/bake-$tag.txt"
    rm -rf "$scratch"
}

criterion() {
    { header; cargo bench -p throng-tests --bench crowd 2>&1; footer; } | tee "$data/criterion-crowd.txt"
    { header; cargo bench -p throng-tests --bench bake 2>&1; footer; } | tee "$data/criterion-bake.txt"
}

plot() {
    build
    "$THRONG_PLOT" "$data/lavapipe-fox.json" -o docs/bench.svg
    if [ -f "$data/gpu-fox.json" ]; then
        "$THRONG_PLOT" "$data/gpu-fox.json" -o docs/bench-gpu.svg
    fi
}

# Bodies of one build and hidden outfits (docs/BENCHMARKS.md, "One bone
# texture for many bodies" and "Hidden outfits"; the README's mixed crowd):
# four Foxes of other proportions (mesh only) baked together with
# --shared-clips, drawn as one mixed crowd worn as outfits; then the outfits
# bench, each mode twice interleaved.
mixed() {
    build
    local bodies="$data/bodies"
    python3 tools/stretched_bodies.py "$model" "$bodies" \
        fox:1,1,1 long:1,1,1.5 wide:1.6,1,1 tall:1,1.4,1
    "$THRONG" bake "$bodies"/*.glb -o "$bodies/baked" --shared-clips
    "$THRONG" render "$bodies"/baked/{fox,long,wide,tall}.throng --instances 400 \
        --outfits --variety --size 1200x500 --camera ground --path gpu-driven \
        -o docs/mixed-crowd.png | tee "$data/mixed-crowd.txt"
    "$THRONG" bench "$model" --instances 1000,3000 \
        --mode outfits,outfits-shaded,outfits,outfits-shaded --size 320x180 \
        --frames 30 --warmup 5 --json "$data/outfits-$commit-lavapipe.json"
    rm -rf "$bodies"
}

# Crowds on real ground (docs/BENCHMARKS.md, "Terrain and foot IK"): 100k
# walkers of the default chain from the ground camera, on the plane and on
# the demo's terrain, then on the terrain with foot IK for the nearest 100,
# 1,000 and 10,000; the foot IK pass and the palette pre-pass are named in
# the per-pass table. Lavapipe sizes (320x180), or GPU ones with
# TERRAIN_GPU=1 (1920x1080).
terrain() {
    local lod size="320x180" how
    [ -n "${TERRAIN_GPU:-}" ] && size="1920x1080"
    bake_default_lod
    {
        header
        for how in "" "--terrain" "--terrain --foot-ik 100" "--terrain --foot-ik 1000" "--terrain --foot-ik 10000"; do
            # shellcheck disable=SC2086
            "$THRONG" bench "$lod" --mode gpu-driven --instances 100000 --size "$size" \
                --camera ground --frames 8 --warmup 3 --walking 100 $how \
                --json "$data/terrain-$tag-$(echo "${how:-plane}" | tr -d ' -').json"
        done
        footer
    } | tee "$data/terrain-$tag.txt"
    rm -f "$lod"
}

case "${1:-all}" in
    all) lavapipe; criterion; plot ;;
    lavapipe) lavapipe ;;
    gpu) gpu ;;
    gpu-driven) gpu_driven ;;
    pose-cache) pose_cache ;;
    walking) walking ;;
    steering) steering ;;
    headline) headline ;;
    occlusion) occlusion ;;
    terrain) terrain ;;
    bake) bake ;;
    mixed) mixed ;;
    criterion) criterion ;;
    plot) plot ;;
    *) echo "usage: $0 [all|lavapipe|gpu|gpu-driven|pose-cache|walking|steering|headline|occlusion|terrain|bake|mixed|criterion|plot]" >&2; exit 2 ;;
esac
