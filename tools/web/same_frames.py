#!/usr/bin/env python3
"""The web bake against the native bake (tools/web.sh test).

    same_frames.py THRONG NATIVE.throng WEB.throng

`THRONG sample --source baked` of both files, every clip at five times
across it: each skinned vertex position of the web bake must be within the
bake's error bound (limits.rs DEFAULT_MAX_ERROR, relative to the bounding
radius) of the native bake's. Prints the worst difference; exit 1 over.
"""
import json
import subprocess
import sys

# throng_core::limits::DEFAULT_MAX_ERROR (both files are baked with it).
MAX_ERROR = 1e-3


def sample(throng, model, clip, times):
    out = subprocess.run(
        [throng, "sample", model, "--source", "baked", "--clip", str(clip),
         "--times", ",".join(f"{t:.4f}" for t in times)],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def positions(doc):
    for frame in doc["frames"]:
        for mesh in frame["meshes"]:
            p = mesh["positions"]
            yield from (p[i:i + 3] for i in range(0, len(p), 3))


def main():
    throng, native, web = sys.argv[1:4]
    inspect = subprocess.run([throng, "inspect", native, "--json"], capture_output=True, text=True)
    clips = json.loads(inspect.stdout)["clips"] if inspect.returncode == 0 else None
    names = [c["name"] for c in clips] if clips else ["0", "1", "2"]
    worst, worst_at, radius, count = 0.0, None, 0.0, 0
    for name in names:
        times = [k * 0.3 for k in range(5)]
        a, b = sample(throng, native, name, times), sample(throng, web, name, times)
        pa, pb = list(positions(a)), list(positions(b))
        if len(pa) != len(pb) or not pa:
            print(f"{name}: {len(pa)} native positions, {len(pb)} from the web")
            return 1
        lo = [min(p[i] for p in pa) for i in range(3)]
        hi = [max(p[i] for p in pa) for i in range(3)]
        radius = max(radius, 0.5 * sum((h - l) ** 2 for l, h in zip(lo, hi)) ** 0.5)
        for k, (p, q) in enumerate(zip(pa, pb)):
            d = sum((x - y) ** 2 for x, y in zip(p, q)) ** 0.5
            count += 1
            if d > worst:
                worst, worst_at = d, (name, k)
    bound = MAX_ERROR * radius
    ok = worst <= bound
    print(f"web bake against native: {count} positions over {len(names)} clips, worst {worst:.3g} "
          f"at {worst_at} (bound {bound:.3g} = {MAX_ERROR} × radius {radius:.3g}): {'pass' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
