#!/usr/bin/env python3
"""Checks that a rendered PNG shows a crowd, not an empty frame.

    tools/crowd_pixels.py PICTURE.png [--min-share 0.02]

The background is the picture's most common colour (the renderer's clear
colour, or a ground); a crowd pixel differs from it by more than 24 levels
in some channel. Exits 1, naming the counts, when crowd pixels are fewer
than --min-share of the picture, or when the picture has one colour only.
Reads 8-bit RGB/RGBA, non-interlaced PNGs (what `throng render` writes)
with the standard library alone, so a fresh machine needs nothing more.
"""
import argparse
import collections
import struct
import sys
import zlib

#: Levels a channel must differ from the background by to count.
THRESHOLD = 24


def read_png(path):
    """Returns (width, height, channels, rows of bytes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    at, idat, header = 8, [], None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        body = data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"{path}: only 8-bit RGB/RGBA, non-interlaced")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, before = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = before[x]
            c = before[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        before = line
    return width, height, channels, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("picture")
    parser.add_argument("--min-share", type=float, default=0.02)
    args = parser.parse_args()
    width, height, channels, rows = read_png(args.picture)
    pixels = [row[x : x + 3] for row in rows for x in range(0, width * channels, channels)]
    background, _ = collections.Counter(pixels).most_common(1)[0]
    crowd = sum(1 for p in pixels if max(abs(p[i] - background[i]) for i in range(3)) > THRESHOLD)
    share = crowd / len(pixels)
    print(
        f"{args.picture}: {crowd} of {len(pixels)} pixels ({share:.1%}) differ from "
        f"the background {tuple(background)}"
    )
    if share < args.min_share:
        print(f"{args.picture}: too few crowd pixels (want at least {args.min_share:.1%})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
