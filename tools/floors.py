#!/usr/bin/env python3
"""Imports between the files of each crate run one way: down.

    python3 tools/floors.py [REPO]

Reads every `crates/*/src/**/*.rs` (tests, benches and examples are left
out), resolves the `crate::…`, `super::…` and `self::…` paths of each file
(in `use` lines and in expressions; comments are skipped) to the file that
defines the module they name, and fails (exit 1), naming the files, when

1. files of a crate reach each other through such paths (an import circle:
   a strongly connected component of more than one file; a module's own
   references to the modules below it in its folder do not count, a
   folder's `mod.rs` declares them), or
2. a file imports from a higher floor of its crate. ARCHITECTURE.md
   declares each crate's floors, bottom first, on a line of its own:

       floors: throng-render = base < device < program < model < passes < draw < gpu_driven < renderer

   Each name is a top-level module of the crate (a file `src/NAME.rs` or a
   folder `src/NAME/`); a floor may hold several, separated by commas. Every
   top-level module of a crate with floors must be on one (the crate root,
   `lib.rs` or `main.rs`, is the façade above them all). A file may import
   from its own floor and the floors below.

    python3 tools/floors.py --self-test

checks the checker: on a made-up repository with a circle and an import
that climbs a floor, it must find both (exit 1 if it does not).

tools/test.sh runs it before the tests; tests/tests/crate_graph.rs runs it
too, so `cargo test` fails on a new circle.
"""
import os
import re
import sys
from collections import defaultdict

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+|::\{)")
FLOORS = re.compile(r"^\s*floors:\s*([A-Za-z0-9_-]+)\s*=\s*(.+?)\s*$")


def module_files(src):
    """Module path tuple -> file, for one crate's src folder."""
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            full = os.path.join(root, f)
            rel = os.path.relpath(full, src)[:-3].split(os.sep)
            if rel[0] == "bin":
                continue
            if rel in (["lib"], ["main"]):
                key = ()
            elif rel[-1] == "mod":
                key = tuple(rel[:-1])
            else:
                key = tuple(rel)
            mods[key] = full
    return mods


def split_braces(text, start):
    """The comma-separated paths inside the braces that open at text[start]."""
    depth, item, items = 0, "", []
    for c in text[start:]:
        if c == "{":
            depth += 1
            if depth > 1:
                item += c
        elif c == "}":
            depth -= 1
            if depth == 0:
                items.append(item)
                break
            item += c
        elif c == "," and depth == 1:
            items.append(item)
            item = ""
        else:
            item += c
    out = []
    for it in (i.strip() for i in items):
        if not it:
            continue
        if "{" in it:
            head, _, rest = it.partition("{")
            head = head.strip().rstrip(":")
            for sub in split_braces("{" + rest, 0):
                out.append(f"{head}::{sub}" if head else sub)
        else:
            out.append(it.split(" as ")[0].strip())
    return out


def references(text):
    """(anchor, segments) of every crate/super/self path in `text`."""
    text = re.sub(r"//[^\n]*", "", text)
    for m in PATH.finditer(text):
        anchor, tail = m.group(1), m.group(2)
        if tail == "::{":
            for p in split_braces(text, m.end() - 1):
                yield anchor, [s for s in p.split("::") if s]
            continue
        segs = [s for s in tail.split("::") if s]
        if text[m.end():m.end() + 3] == "::{":
            for p in split_braces(text, m.end() + 2):
                yield anchor, segs + [s for s in p.split("::") if s]
        else:
            yield anchor, segs


def resolve(mods, here, anchor, segs):
    """The module a path names: its longest prefix that is a module."""
    if anchor == "crate":
        base = []
    elif anchor == "self":
        base = list(here)
    else:
        base = list(here[:-1])
        while segs and segs[0] == "super":
            base = base[:-1]
            segs = segs[1:]
    path = tuple(base + segs)
    for n in range(len(path), -1, -1):
        if path[:n] in mods:
            return path[:n]
    return None


def graph(src):
    """(modules, edges between files) of one crate."""
    mods = module_files(src)
    edges = defaultdict(set)
    for here, f in mods.items():
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for anchor, segs in references(text):
            target = resolve(mods, here, anchor, segs)
            if target is None or target == here or target == ():
                continue
            if len(target) > len(here) and target[: len(here)] == here:
                continue
            edges[f].add(mods[target])
    return mods, edges


def circles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def declared_floors(repo):
    """crate -> {top-level module: floor index}, from ARCHITECTURE.md."""
    floors = {}
    with open(os.path.join(repo, "ARCHITECTURE.md"), encoding="utf-8") as f:
        for line in f:
            m = FLOORS.match(line)
            if not m:
                continue
            crate, order = m.group(1), m.group(2)
            floors[crate] = {
                name.strip(): i
                for i, floor in enumerate(order.split("<"))
                for name in floor.split(",")
                if name.strip()
            }
    return floors


def check(repo):
    """Every problem found in `repo`, and the summary lines."""
    floors = declared_floors(repo)
    problems, summary = [], []
    crates_dir = os.path.join(repo, "crates")
    for crate in sorted(os.listdir(crates_dir)):
        src = os.path.join(crates_dir, crate, "src")
        if not os.path.isdir(src):
            continue
        mods, edges = graph(src)
        rel = lambda f: os.path.relpath(f, src)  # noqa: E731
        for comp in circles(list(mods.values()), edges):
            problems.append(f"{crate}: circle of {len(comp)}: {', '.join(map(rel, comp))}")
        order = floors.get(crate)
        shown = ""
        if order:
            by_floor = defaultdict(list)
            for name, i in order.items():
                by_floor[i].append(name)
            shown = ", floors " + " < ".join(", ".join(by_floor[i]) for i in sorted(by_floor))
        summary.append(f"{crate}: {len(mods)} files{shown}")
        if order is None:
            continue
        top = {f: key[0] for key, f in mods.items() if key}
        for name in sorted(set(top.values()) - set(order)):
            problems.append(
                f"{crate}: module {name} is on no floor (add it to the `floors: {crate}` line of ARCHITECTURE.md)"
            )
        for name in sorted(set(order) - set(top.values())):
            problems.append(f"{crate}: ARCHITECTURE.md puts {name} on a floor, but src/ has no such module")
        for f, targets in sorted(edges.items()):
            if f not in top or top[f] not in order:
                continue
            for t in sorted(targets):
                if t in top and top[t] in order and order[top[t]] > order[top[f]]:
                    problems.append(
                        f"{crate}: {rel(f)} (floor {top[f]}) imports {rel(t)}, on the higher floor {top[t]}"
                    )
    return problems, summary


def self_test():
    """The checker finds a circle and a climbing import in a made-up tree."""
    import tempfile

    with tempfile.TemporaryDirectory() as repo:
        src = os.path.join(repo, "crates", "demo", "src")
        os.makedirs(os.path.join(src, "low"))
        os.makedirs(os.path.join(src, "high"))
        files = {
            "lib.rs": "pub mod high;\npub mod low;\n",
            "low/mod.rs": "pub mod a;\npub mod b;\n",
            "low/a.rs": "use crate::low::b::B;\npub struct A;\n",
            "low/b.rs": "use crate::low::a::A;\nuse crate::high::h::H;\npub struct B;\n",
            "high/mod.rs": "pub mod h;\n",
            "high/h.rs": "pub struct H;\n",
        }
        for name, text in files.items():
            with open(os.path.join(src, name), "w") as f:
                f.write(text)
        with open(os.path.join(repo, "ARCHITECTURE.md"), "w") as f:
            f.write("floors: demo = low < high\n")
        problems, _ = check(repo)
    found_circle = any("circle of 2: low/a.rs, low/b.rs" in p for p in problems)
    found_climb = any("low/b.rs (floor low) imports high/h.rs" in p for p in problems)
    for p in problems:
        print(f"self-test found: {p}")
    if not (found_circle and found_climb and len(problems) == 2):
        print("floors.py --self-test: the checker missed a planted problem", file=sys.stderr)
        sys.exit(1)
    print("floors.py --self-test: both planted problems found")


def main():
    if "--self-test" in sys.argv:
        self_test()
        return
    repo = next((a for a in sys.argv[1:] if not a.startswith("--")), ".")
    problems, summary = check(repo)
    for line in summary:
        print(line)
    for p in problems:
        print(f"floors.py: {p}", file=sys.stderr)
    if problems:
        print(f"floors.py: {len(problems)} problem(s)", file=sys.stderr)
        sys.exit(1)
    print("floors.py: no circles, every import runs down")


if __name__ == "__main__":
    main()
