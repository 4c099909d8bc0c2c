#!/usr/bin/env python3
"""Bodies of one build from one GLB: copies of it with their meshes (not
their rigs) stretched, for a mixed crowd that shares one animation library
(docs/RETARGETING.md, "One bone texture for many bodies").

    tools/stretched_bodies.py MODEL.glb OUT_DIR NAME:SX,SY,SZ ...

writes OUT_DIR/NAME.glb per body, every POSITION accessor of every mesh
scaled by (SX, SY, SZ) about the model's origin and its bounds with it.
The skins, joints, inverse binds and clips are the model's: the bodies
bake the same frames (bake them together with `--shared-clips`)."""

import json
import struct
import sys
from pathlib import Path


def read_glb(path):
    data = Path(path).read_bytes()
    magic, version, _ = struct.unpack_from("<III", data, 0)
    if magic != 0x46546C67:
        sys.exit(f"{path}: not a GLB")
    json_len, _ = struct.unpack_from("<II", data, 12)
    doc = json.loads(data[20 : 20 + json_len])
    at = 20 + json_len
    bin_len, _ = struct.unpack_from("<II", data, at)
    return version, doc, bytearray(data[at + 8 : at + 8 + bin_len])


def write_glb(path, version, doc, bin_chunk):
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    bin_chunk = bytes(bin_chunk) + b"\0" * (-len(bin_chunk) % 4)
    total = 12 + 8 + len(js) + 8 + len(bin_chunk)
    out = struct.pack("<III", 0x46546C67, version, total)
    out += struct.pack("<II", len(js), 0x4E4F534A) + js
    out += struct.pack("<II", len(bin_chunk), 0x004E4942) + bin_chunk
    Path(path).write_bytes(out)


def stretch(doc, bin_chunk, scale):
    positions = {
        p["attributes"]["POSITION"]
        for m in doc.get("meshes", [])
        for p in m["primitives"]
    }
    for index in positions:
        a = doc["accessors"][index]
        if a.get("componentType") != 5126 or a.get("type") != "VEC3":
            sys.exit(f"accessor {index}: POSITION is not float VEC3")
        view = doc["bufferViews"][a["bufferView"]]
        start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
        stride = view.get("byteStride", 12)
        for i in range(a["count"]):
            at = start + i * stride
            p = struct.unpack_from("<3f", bin_chunk, at)
            struct.pack_into("<3f", bin_chunk, at, *(c * s for c, s in zip(p, scale)))
        for bound in ("min", "max"):
            if bound in a:
                a[bound] = [c * s for c, s in zip(a[bound], scale)]
        # A negative scale swaps the bounds.
        if "min" in a and "max" in a:
            a["min"], a["max"] = (
                [min(x, y) for x, y in zip(a["min"], a["max"])],
                [max(x, y) for x, y in zip(a["min"], a["max"])],
            )


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    model, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for spec in sys.argv[3:]:
        name, _, factors = spec.partition(":")
        scale = [float(x) for x in factors.split(",")]
        if not name or len(scale) != 3:
            sys.exit(f"{spec!r}: expected NAME:SX,SY,SZ")
        version, doc, bin_chunk = read_glb(model)
        stretch(doc, bin_chunk, scale)
        write_glb(out / f"{name}.glb", version, doc, bin_chunk)


if __name__ == "__main__":
    main()
