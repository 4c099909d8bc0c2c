#!/usr/bin/env python3
"""Writes the glTF fuzz seeds that reach what the first seeds did not.

    python3 fuzz/make_seeds.py

The `gltf` target's first seeds (SimpleSkin, RiggedSimple, the morph bar,
the textured skin) had no image in a buffer view, no sampler, no
KHR_texture_transform, no sparse accessor, no second skin, no camera and no
broken image, so libFuzzer started far from that code. These seeds are
built from two committed ones by editing their JSON, so they stay small and
valid (each is accepted by its target: `tests/corpus.rs` checks):

gltf/
  image_view_sampler.glb  every buffer in the GLB chunk, the image in a
                          buffer view, a sampler with clamp and mirror wraps
                          and filters, KHR_texture_transform on the colour,
                          normal and occlusion slots, an emissive texture
                          with KHR_materials_emissive_strength
  broken_images.gltf      images that break glTF's rules (empty, a view
                          without mimeType, a view index out of range, both
                          uri and view), each used by a texture slot
  sparse_morphs.gltf      two morph targets, one sparse without a buffer view,
                          one sparse over a view; animated weights; target
                          names in the mesh's extras
  two_skins_cameras.gltf  a second skinned node with its own skin, cameras of
                          both kinds, KHR_lights_punctual, a matrix node, a
                          second scene and a points primitive
provenance/
  buffer_file.gltf        a buffer read from the sandbox's regular file
  image_outside.gltf      an image naming a link out of the model's folder
  reject_special_uris.gltf  buffers and images naming the sandbox's FIFO,
                          socket, directory and device
"""

import base64
import copy
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "seeds")


def load(name):
    with open(os.path.join(SEEDS, "gltf", name)) as f:
        return json.load(f)


def write(target, name, doc):
    with open(os.path.join(SEEDS, target, name), "w") as f:
        json.dump(doc, f, separators=(",", ":"))


def data_uri(raw):
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


def decode(uri):
    return base64.b64decode(uri.split(",", 1)[1])


def png_bytes(doc):
    return decode(doc["images"][0]["uri"])


def add_buffer(doc, raw):
    doc["buffers"].append({"uri": data_uri(raw), "byteLength": len(raw)})
    doc["bufferViews"].append({"buffer": len(doc["buffers"]) - 1, "byteLength": len(raw)})
    return len(doc["bufferViews"]) - 1


def add_accessor(doc, view, count, type_, **extra):
    acc = {"componentType": 5126, "count": count, "type": type_}
    if view is not None:
        acc["bufferView"] = view
    acc.update(extra)
    doc["accessors"].append(acc)
    return len(doc["accessors"]) - 1


def image_view_sampler():
    doc = load("textured_skin.gltf")
    png = png_bytes(doc)
    view = add_buffer(doc, png)
    doc["images"] = [{"bufferView": view, "mimeType": "image/png", "name": "checker"}]
    doc["samplers"] = [{"wrapS": 33071, "wrapT": 33648, "magFilter": 9728, "minFilter": 9987}]
    doc["textures"] = [{"source": 0, "sampler": 0}]
    transform = {"offset": [0.25, 0.5], "rotation": 0.3, "scale": [2.0, 0.5]}
    doc["materials"] = [{
        "name": "transformed",
        "pbrMetallicRoughness": {
            "baseColorFactor": [1.0, 0.8, 0.6, 1.0],
            "baseColorTexture": {"index": 0, "extensions": {"KHR_texture_transform": transform}},
            "metallicFactor": 0.3,
            "roughnessFactor": 0.7,
            "metallicRoughnessTexture": {"index": 0},
        },
        "normalTexture": {"index": 0, "scale": 0.5,
                          "extensions": {"KHR_texture_transform": {"rotation": 1.0}}},
        "occlusionTexture": {"index": 0, "strength": 0.8,
                             "extensions": {"KHR_texture_transform": {"scale": [3.0, 3.0]}}},
        "emissiveTexture": {"index": 0},
        "emissiveFactor": [1.0, 0.5, 0.0],
        "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 2.0}},
        "alphaMode": "BLEND",
        "doubleSided": True,
    }]
    doc["extensionsUsed"] = ["KHR_texture_transform", "KHR_materials_emissive_strength"]
    # Every buffer into one GLB binary chunk, 4-byte aligned.
    blob = b""
    starts = []
    for b in doc["buffers"]:
        starts.append(len(blob))
        raw = decode(b["uri"])[: b["byteLength"]]
        blob += raw + b"\0" * (-len(raw) % 4)
    for v in doc["bufferViews"]:
        v["byteOffset"] = v.get("byteOffset", 0) + starts[v["buffer"]]
        v["buffer"] = 0
    doc["buffers"] = [{"byteLength": len(blob)}]
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    glb = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + 8 + len(blob))
    glb += struct.pack("<I4s", len(text), b"JSON") + text
    glb += struct.pack("<I4s", len(blob), b"BIN\0") + blob
    with open(os.path.join(SEEDS, "gltf", "image_view_sampler.glb"), "wb") as f:
        f.write(glb)


def broken_images():
    doc = load("textured_skin.gltf")
    png = png_bytes(doc)
    view = add_buffer(doc, png)
    doc["images"] = [
        {},
        {"bufferView": view},
        {"bufferView": 99, "mimeType": "image/png"},
        {"bufferView": view, "mimeType": "image/png", "uri": "x.png"},
        doc["images"][0],
    ]
    doc["textures"] = [{"source": i} for i in range(5)] + [{"source": 0, "sampler": 7}]
    doc["materials"] = [{
        "pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                                 "metallicRoughnessTexture": {"index": 1}},
        "normalTexture": {"index": 2},
        "occlusionTexture": {"index": 3},
        "emissiveTexture": {"index": 5},
    }]
    write("gltf", "broken_images.gltf", doc)


def sparse_morphs():
    doc = load("simple_skin.gltf")
    # Target 0: sparse without a view (zeros, then vertices 6..9 moved).
    indices = struct.pack("<4H", 6, 7, 8, 9)
    values = struct.pack("<12f", *([0.4, 0.0, 0.2] * 4))
    iv = add_buffer(doc, indices)
    vv = add_buffer(doc, values)
    t0 = add_accessor(doc, None, 10, "VEC3", sparse={
        "count": 4, "indices": {"bufferView": iv, "componentType": 5123},
        "values": {"bufferView": vv}})
    # Target 1: a dense view of small offsets, with two of them replaced.
    dense = struct.pack("<30f", *([0.0, 0.05, 0.0] * 10))
    dv = add_buffer(doc, dense)
    si = add_buffer(doc, struct.pack("<2B", 2, 5) + b"\0\0")
    sv = add_buffer(doc, struct.pack("<6f", 0.0, 0.0, 0.3, 0.0, 0.0, -0.3))
    t1 = add_accessor(doc, dv, 10, "VEC3", sparse={
        "count": 2, "indices": {"bufferView": si, "componentType": 5121},
        "values": {"bufferView": sv}})
    prim = doc["meshes"][0]["primitives"][0]
    prim["targets"] = [{"POSITION": t0}, {"POSITION": t1}]
    doc["meshes"][0]["weights"] = [0.0, 0.5]
    doc["meshes"][0]["extras"] = {"targetNames": ["lean", "bulge"]}
    times = [0.0, 1.0, 2.5, 4.0, 5.5]
    weights = [0.0, 0.5, 1.0, 0.0, 0.3, 1.0, 0.7, 0.2, 0.0, 0.5]
    tv = add_buffer(doc, struct.pack("<5f", *times))
    wv = add_buffer(doc, struct.pack("<10f", *weights))
    ta = add_accessor(doc, tv, 5, "SCALAR", min=[0.0], max=[5.5])
    wa = add_accessor(doc, wv, 10, "SCALAR")
    anim = doc["animations"][0]
    anim["samplers"].append({"input": ta, "interpolation": "LINEAR", "output": wa})
    anim["channels"].append({"sampler": len(anim["samplers"]) - 1,
                             "target": {"node": 0, "path": "weights"}})
    write("gltf", "sparse_morphs.gltf", doc)


def two_skins_cameras():
    doc = load("simple_skin.gltf")
    doc["skins"].append({"inverseBindMatrices": 4, "joints": [2, 1], "name": "swapped"})
    doc["nodes"].append({"skin": 1, "mesh": 0, "name": "second",
                         "matrix": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 0, 0, 1]})
    doc["nodes"].append({"camera": 0, "translation": [0, 1, 5], "extras": {"role": "view"}})
    doc["nodes"].append({"camera": 1, "extensions": {"KHR_lights_punctual": {"light": 0}}})
    doc["cameras"] = [
        {"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1, "zfar": 100.0,
                                                "aspectRatio": 1.5}},
        {"type": "orthographic", "orthographic": {"xmag": 2.0, "ymag": 2.0,
                                                  "znear": 0.1, "zfar": 50.0}},
    ]
    doc["extensions"] = {"KHR_lights_punctual": {"lights": [
        {"type": "spot", "color": [1, 1, 1], "intensity": 5.0, "spot": {"outerConeAngle": 0.7}}]}}
    doc["extensionsUsed"] = ["KHR_lights_punctual"]
    doc["meshes"].append({"primitives": [{"attributes": {"POSITION": 1}, "mode": 0}]})
    doc["nodes"].append({"mesh": 1})
    doc["scenes"][0]["nodes"] += [3, 4, 5, 6]
    doc["scenes"].append({"nodes": [1], "name": "joints only"})
    write("gltf", "two_skins_cameras.gltf", doc)


def provenance_seeds():
    doc = load("simple_skin.gltf")
    first = copy.deepcopy(doc)
    first["buffers"][0] = {"uri": "a.bin", "byteLength": 168}
    write("provenance", "buffer_file.gltf", first)
    tex = load("textured_skin.gltf")
    tex["images"] = [{"uri": "out.bin"}]
    write("provenance", "image_outside.gltf", tex)
    special = load("textured_skin.gltf")
    names = ["fifo", "socket", "dir", "zero", "out.bin", "a.bin"]
    special["buffers"] = [{"uri": n, "byteLength": 64} for n in names] + special["buffers"]
    for v in special["bufferViews"]:
        v["buffer"] += len(names)
    special["images"] = [{"uri": n} for n in names]
    special["textures"] = [{"source": i} for i in range(len(names))]
    write("provenance", "reject_special_uris.gltf", special)


def main():
    os.makedirs(os.path.join(SEEDS, "provenance"), exist_ok=True)
    image_view_sampler()
    broken_images()
    sparse_morphs()
    two_skins_cameras()
    provenance_seeds()


if __name__ == "__main__":
    main()
