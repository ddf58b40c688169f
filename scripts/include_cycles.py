#!/usr/bin/env python3
"""include_cycles.py -- the layering check of docs/ARCHITECTURE.md.

Reads the quoted #include lines of agent/, server/ and proto/ and reports
  - every cycle in the include graph, where a .c and its own .h count as one
    module (server/api.c and server/api.h are the module server/api);
  - every include from agent/ into server/ or from server/ into agent/ (only
    proto/ may be shared; proto/ includes nothing of ours but itself).
A quoted name is looked up next to the including file first, then in proto/
(the Makefile's only -I for our code). Exit status 1 when anything is reported,
0 when the graph is clean. Run from anywhere: paths are relative to the repo.

    scripts/include_cycles.py            # check agent/, server/, proto/
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRS = ("agent", "server", "proto")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(path):
    """agent/ring.c and agent/ring.h -> agent/ring."""
    return os.path.splitext(path)[0]


def resolve(including, name):
    """The repo-relative file a quoted include names, or None (not ours)."""
    here = os.path.dirname(including)
    for base in (here, "proto"):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(ROOT, candidate)):
            return candidate
    return None


def read_graph():
    """module -> {included module: the first 'file: #include' line seen}."""
    graph, problems = {}, []
    for d in DIRS:
        top = os.path.join(ROOT, d)
        if not os.path.isdir(top):
            continue
        for name in sorted(os.listdir(top)):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(d, name)
            with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
                text = f.read()
            edges = graph.setdefault(module_of(path), {})
            for included in INCLUDE.findall(text):
                target = resolve(path, included)
                if target is None:
                    continue
                src_dir, dst_dir = path.split("/")[0], target.split("/")[0]
                if src_dir != dst_dir and not (dst_dir == "proto" and src_dir != "proto"):
                    problems.append("%s includes %s: only proto/ is shared between agent/ and "
                                    "server/" % (path, target))
                    if src_dir == "proto":
                        problems[-1] = "%s includes %s: proto/ includes nothing outside proto/" % (
                            path, target)
                dst = module_of(target)
                if dst != module_of(path):
                    edges.setdefault(dst, "%s: #include \"%s\"" % (path, included))
    return graph, problems


def strong_components(graph):
    """The strongly connected components of more than one module (Tarjan), each
    sorted; graph maps a module to the modules it reaches (any iterable of them).
    scripts/layout.py finds its call cycles with it too."""
    index, low, stack, on_stack, sccs = {}, {}, [], set(), []
    counter = [0]

    def strongconnect(v):  # Tarjan, iterative enough for our sizes
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return sccs


def find_cycles(graph):
    """Strongly connected components of more than one module, with one cycle each."""
    sccs = strong_components(graph)
    cycles = []
    for comp in sccs:
        members = set(comp)
        start = comp[0]
        # shortest path back to start inside the component (BFS)
        prev, frontier, found = {start: None}, [start], None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in sorted(graph.get(v, {})):
                    if w not in members:
                        continue
                    if w == start:
                        found = v
                        break
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        path, v = [], found
        while v is not None:
            path.append(v)
            v = prev[v]
        path.reverse()
        path.append(start)
        cycles.append((comp, path))
    return cycles


def main():
    graph, problems = read_graph()
    for comp, path in find_cycles(graph):
        print("include cycle: " + " -> ".join(path))
        for a, b in zip(path, path[1:]):
            print("    " + graph[a][b])
        if len(comp) > len(path) - 1:
            print("    (modules in this tangle: %s)" % ", ".join(comp))
        problems.append(None)
    for p in problems:
        if p:
            print(p)
    if problems:
        print("include_cycles: %d problem(s)" % len(problems))
        return 1
    print("include_cycles: no cycles, agent/ and server/ share only proto/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
