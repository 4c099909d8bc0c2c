#!/usr/bin/env python3
"""Every Rust or WGSL file the docs name exists.

    python3 tools/doc_paths.py [ROOT]

Reads the Markdown files git tracks and the doc comments (`//!`, `///`) of
its Rust files, takes every name ending in `.rs` or `.wgsl`, and fails
unless a tracked file matches it: a name with a folder must be the end of
a tracked path (`draw/pillars.rs` matches `crates/throng-render/src/draw/
pillars.rs`), a bare name must be some tracked file's name. CHANGELOG.md
is history (it may name what was removed) and is not read; glob patterns,
`target/` paths and the few names of other projects' files below are
skipped.
"""
import os
import re
import subprocess
import sys

# Names that are not this repository's files: the site, and Bevy's shaders
# that docs/design/occlusion.md compares with.
EXTERNAL = {"docs.rs", "mesh_preprocess.wgsl", "occlusion_culling.wgsl"}
NAME = re.compile(r"(?<![\w./*-])((?:[\w.-]+/)*[\w-]+\.(?:rs|wgsl))\b")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    # The working tree as it is: tracked and untracked (not ignored) files
    # that exist, so an uncommitted move reads as the tree will be.
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    files = sorted({f for f in listed if os.path.isfile(f"{root}/{f}")})
    names = {f.rsplit("/", 1)[-1] for f in files}
    missing = []
    for doc in files:
        if doc.endswith("CHANGELOG.md"):
            continue
        if doc.endswith(".md"):
            lines = open(f"{root}/{doc}", encoding="utf-8").read().splitlines()
        elif doc.endswith(".rs"):
            lines = [
                l for l in open(f"{root}/{doc}", encoding="utf-8").read().splitlines()
                if l.lstrip().startswith(("//!", "///"))
            ]
        else:
            continue
        for n, line in enumerate(lines, 1):
            for name in NAME.findall(line):
                if name.startswith(("target/", "/")) or "*" in name or name in EXTERNAL:
                    continue
                if "/" in name:
                    ok = any(f == name or f.endswith("/" + name) for f in files)
                else:
                    ok = name in names
                if not ok:
                    missing.append(f"{doc}:{n if doc.endswith('.md') else '(doc comment)'}: {name}")
    for m in missing:
        print(m)
    print(f"doc_paths: {len(missing)} names of files that do not exist")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
