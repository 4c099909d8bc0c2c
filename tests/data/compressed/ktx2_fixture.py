#!/usr/bin/env python3
"""Writes a copy of a GLB whose textures read KTX2 images (KHR_texture_basisu).

    ktx2_fixture.py SOURCE.glb OUT.glb IMAGE.ktx2 [--fallback]

Every texture's image becomes IMAGE.ktx2 (`image/ktx2`, in the binary
chunk) through `extensions.KHR_texture_basisu.source`. With --fallback the
texture keeps its `source` (the original image) and the extension is only
used; without it the original image is dropped and the extension is
required, as `gltf-transform uastc`/`etc1s` write it. The KTX2 files come
from the Basis Universal encoder (`basisu -ktx2 …`, see README.md).
"""
import json
import struct
import sys


def read_glb(path):
    data = open(path, "rb").read()
    magic, version, _ = struct.unpack_from("<4sII", data, 0)
    assert magic == b"glTF" and version == 2, path
    json_len, json_type = struct.unpack_from("<II", data, 12)
    assert json_type == 0x4E4F534A
    doc = json.loads(data[20 : 20 + json_len])
    at = 20 + json_len
    bin_len, bin_type = struct.unpack_from("<II", data, at)
    assert bin_type == 0x004E4942
    return doc, bytearray(data[at + 8 : at + 8 + bin_len])


def write_glb(path, doc, blob):
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    blob = bytes(blob) + b"\0" * (-len(blob) % 4)
    total = 12 + 8 + len(text) + 8 + len(blob)
    with open(path, "wb") as f:
        f.write(struct.pack("<4sII", b"glTF", 2, total))
        f.write(struct.pack("<II", len(text), 0x4E4F534A) + text)
        f.write(struct.pack("<II", len(blob), 0x004E4942) + blob)


def main():
    source, out, ktx2 = sys.argv[1:4]
    fallback = "--fallback" in sys.argv[4:]
    doc, blob = read_glb(source)
    image = open(ktx2, "rb").read()
    blob += b"\0" * (-len(blob) % 4)
    doc["bufferViews"].append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(image)})
    blob += image
    doc["buffers"][0]["byteLength"] = len(blob)
    new = len(doc["images"])
    doc["images"].append({"name": "ktx2", "mimeType": "image/ktx2", "bufferView": len(doc["bufferViews"]) - 1})
    for texture in doc["textures"]:
        texture.setdefault("extensions", {})["KHR_texture_basisu"] = {"source": new}
        if not fallback:
            del texture["source"]
    used = doc.setdefault("extensionsUsed", [])
    used.append("KHR_texture_basisu")
    if not fallback:
        doc.setdefault("extensionsRequired", []).append("KHR_texture_basisu")
        # The original images, no longer referred to, go (their views stay,
        # unreferenced, as a writer that does not compact would leave them).
        keep = [i for i, _ in enumerate(doc["images"]) if i == new]
        doc["images"] = [doc["images"][i] for i in keep]
        for texture in doc["textures"]:
            texture["extensions"]["KHR_texture_basisu"]["source"] = 0
    write_glb(out, doc, blob)


if __name__ == "__main__":
    main()
