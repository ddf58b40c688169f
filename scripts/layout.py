#!/usr/bin/env python3
"""layout.py -- the structure checks of docs/ARCHITECTURE.md that includes do not see.

  calls      no two modules of agent/, server/ or proto/ call each other in a
             loop: a module is a .c file (with its own .h); A calls B when A's
             object file uses a symbol B's defines (nm of the objects `make`
             built under build/obj/{server,agent}). A call back up through a
             function pointer (a listener, a sink) is not a call, by design.
  sizes      no source file (agent/, server/, proto/, web/js/) is longer than
             MAX_LINES lines.
  test-sizes no test source (tests/: C, headers, JavaScript, C#; not
             node_modules, bin/ and obj/ build output or the fuzz corpora) is
             longer than MAX_LINES lines either: tests are held to the
             product's rules, a file split by subject.
  page       docs/ARCHITECTURE.md names every such source file (by its path
             relative to its directory, e.g. `session_fold.c` or `views/feed.js`).
  guards     every header's include guard is its own.
  states     a session's state changes only in server/session_state.c (every
             transition is a function there): no other server .c file
             assigns a SESSION_* state, but session.c's session_new (STARTING).
  kinds      every agent record kind (proto/wire.h's enum wire_record_type) is
             named in at most MAX_KIND_FILES server .c files: its row in
             server/record_kinds.c and the one file that folds it or logs
             its events, so that no switch over record kinds grows back
             (docs/ARCHITECTURE.md, "Where to add").

Exit status 1 when anything is reported. Needs the objects: run `make` first
(make lint does).

    scripts/layout.py            # all checks
    scripts/layout.py calls      # one of them
"""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no scripts/__pycache__ left in the tree
from include_cycles import strong_components  # noqa: E402 (after the line above)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LINES = 800
C_DIRS = ("agent", "server", "proto")
OBJ_FLAVOURS = {"server": ("server", "proto"), "agent": ("agent", "proto")}
PAGE = "docs/ARCHITECTURE.md"
MAX_KIND_FILES = 2


def sources():
    """Every source file of the product, repo-relative."""
    out = []
    for d in C_DIRS:
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if f.endswith((".c", ".h")):
                out.append(f"{d}/{f}")
    for base, _, files in os.walk(os.path.join(ROOT, "web", "js")):
        for f in sorted(files):
            if f.endswith(".js"):
                out.append(os.path.relpath(os.path.join(base, f), ROOT))
    return sorted(out)


def nm(path, *flags):
    r = subprocess.run(["nm", *flags, path], capture_output=True, text=True, check=True)
    return r.stdout.splitlines()


def call_graph(flavour, dirs):
    """module -> {module it calls: [symbols]} for one build flavour."""
    objdir = os.path.join(ROOT, "build", "obj", flavour)
    defined, used = {}, {}
    for d in dirs:
        folder = os.path.join(objdir, d)
        if not os.path.isdir(folder):
            raise SystemExit(f"layout: no objects in {os.path.relpath(folder, ROOT)}: run make first")
        for f in sorted(os.listdir(folder)):
            if not f.endswith(".o"):
                continue
            module = f"{d}/{f[:-2]}"
            if not os.path.exists(os.path.join(ROOT, module + ".c")):
                continue  # left by a source file since removed (an older checkout's build)
            path = os.path.join(folder, f)
            for line in nm(path, "--defined-only", "-g"):
                sym = line.split()[-1]
                defined[sym] = module
            used[module] = [line.split()[-1] for line in nm(path, "-u")]
    graph = {}
    for module, syms in used.items():
        edges = graph.setdefault(module, {})
        for sym in syms:
            callee = defined.get(sym)
            if callee and callee != module:
                edges.setdefault(callee, []).append(sym)
    return graph


def check_calls():
    problems = []
    for flavour, dirs in OBJ_FLAVOURS.items():
        graph = call_graph(flavour, dirs)
        for comp in strong_components(graph):
            problems.append(f"call cycle ({flavour}): {' <-> '.join(comp)}")
            for a in comp:
                for b, syms in sorted(graph.get(a, {}).items()):
                    if b in comp:
                        problems.append(f"    {a} -> {b}: {', '.join(sorted(set(syms))[:6])}")
    return problems


def check_sizes():
    problems = []
    for f in sources():
        with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        if n > MAX_LINES:
            problems.append(f"{f}: {n} lines (at most {MAX_LINES}: split it by job)")
    return problems


TEST_SOURCE = re.compile(r"\.(c|h|mjs|js|cs)$")
TEST_SKIPPED = re.compile(r"(^|/)(node_modules|bin|obj)/|^tests/fuzz/corpus/")


def test_sources():
    """Every test source file, repo-relative: tracked or new (git's view, so what
    a run leaves behind and .gitignore names is not counted)."""
    r = subprocess.run(["git", "-C", ROOT, "ls-files", "--cached", "--others", "--exclude-standard",
                        "--", "tests"], capture_output=True, text=True, check=True)
    return sorted(f for f in set(r.stdout.splitlines())
                  if TEST_SOURCE.search(f) and not TEST_SKIPPED.search(f)
                  and os.path.isfile(os.path.join(ROOT, f)))


def check_test_sizes():
    problems = []
    for f in test_sources():
        with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        if n > MAX_LINES:
            problems.append(f"{f}: {n} lines (at most {MAX_LINES}: split it by subject)")
    return problems


def check_page():
    with open(os.path.join(ROOT, PAGE), encoding="utf-8") as fh:
        page = fh.read()
    problems = []
    for f in sources():
        name = f.split("/", 1)[1] if not f.startswith("web/js/") else f[len("web/js/"):]
        if not re.search(r"(?<![\w/.])" + re.escape(name) + r"(?![\w])", page):
            problems.append(f"{f}: not named in {PAGE}")
    return problems


GUARD = re.compile(r"^#ifndef\s+(\w+)\s*\n#define\s+\1\b", re.M)


def check_guards():
    seen, problems = {}, []
    for f in sources():
        if not f.endswith(".h"):
            continue
        with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
            m = GUARD.search(fh.read())
        if not m:
            problems.append(f"{f}: no include guard")
        elif m.group(1) in seen:
            problems.append(f"{f}: include guard {m.group(1)} is also {seen[m.group(1)]}'s")
        else:
            seen[m.group(1)] = f
    return problems


STATE_WRITE = re.compile(r"\bstate\s*=\s*(SESSION_[A-Z]+)\b")
STATE_WRITERS = {"session_state.c": None, "session.c": {"SESSION_STARTING"}}


def check_states():
    problems = []
    folder = os.path.join(ROOT, "server")
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".c"):
            continue
        with open(os.path.join(folder, f), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                for m in STATE_WRITE.finditer(line):
                    allowed = STATE_WRITERS.get(f, set())
                    if allowed is not None and m.group(1) not in allowed:
                        problems.append(f"server/{f}:{n}: {m.group(0).strip()}: a session's state "
                                        "changes in session_state.c (a transition function)")
    return problems


def record_kinds():
    """The names of proto/wire.h's agent record kinds (enum wire_record_type)."""
    with open(os.path.join(ROOT, "proto", "wire.h"), encoding="utf-8") as fh:
        m = re.search(r"enum wire_record_type \{(.*?)\};", fh.read(), re.S)
    if not m:
        raise SystemExit("layout: no enum wire_record_type in proto/wire.h")
    names = re.findall(r"^\s*(WIRE_\w+)\s*=", m.group(1), re.M)
    return [n for n in names if n != "WIRE_RECORD_TYPE_MAX"]


def check_kinds():
    files = {}
    folder = os.path.join(ROOT, "server")
    for f in sorted(os.listdir(folder)):
        if f.endswith(".c"):
            with open(os.path.join(folder, f), encoding="utf-8") as fh:
                files[f] = set(re.findall(r"\bWIRE_\w+", fh.read()))
    problems = []
    for kind in record_kinds():
        named = [f for f, words in files.items() if kind in words]
        if len(named) > MAX_KIND_FILES:
            problems.append(f"{kind}: named in {len(named)} server .c files ({', '.join(named)}); "
                            f"at most {MAX_KIND_FILES}: its row in record_kinds.c and its fold "
                            f"(a switch over record kinds belongs in the row)")
    return problems


CHECKS = {"calls": check_calls, "sizes": check_sizes, "test-sizes": check_test_sizes,
          "page": check_page, "guards": check_guards, "states": check_states, "kinds": check_kinds}


def main(argv):
    names = argv[1:] or list(CHECKS)
    failed = 0
    for name in names:
        problems = CHECKS[name]()
        for p in problems:
            print(p)
        print(f"layout {name}: {'clean' if not problems else f'{len(problems)} problem(s)'}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
