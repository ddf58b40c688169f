#!/usr/bin/env python3
"""test_files.py -- docs/TESTING.md lists every test file, and only files that exist.

The test files: the unit tests and what they share (tests/unit/*.c, *.h, *.sh),
the end-to-end and browser tests and their helpers (tests/e2e/*.mjs,
tests/browser/*.mjs), the fuzz targets and their runner (tests/fuzz/*.c, *.h,
*.sh), tests/helpers/* and tests/run.sh, as git sees them (tracked, or new and
not ignored). The list: the lines "- `tests/...`: what it covers" of the page's
section "## Every test file". Run by scripts/lint.sh (make lint); exit status 1
names each file missing from the list and each listed file that does not exist.
"""
import fnmatch
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = "docs/TESTING.md"
SECTION = "## Every test file"
PATTERNS = (
    "tests/unit/*.c", "tests/unit/*.h", "tests/unit/*.sh",
    "tests/e2e/*.mjs", "tests/browser/*.mjs",
    "tests/fuzz/*.c", "tests/fuzz/*.h", "tests/fuzz/*.sh",
    "tests/helpers/*", "tests/run.sh",
)
ENTRY = re.compile(r"^- `(tests/[^`]+)`: \S")


def test_files():
    """The test files git knows of (tracked, or untracked and not ignored) that exist."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", "tests"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    files = set()
    for f in out.splitlines():
        # one directory level: tests/unit/x.c, not tests/fuzz/corpus/...
        if any(fnmatch.fnmatch(f, p) and f.count("/") == p.count("/") for p in PATTERNS) \
                and os.path.isfile(os.path.join(ROOT, f)):
            files.add(f)
    return files


def listed():
    """The files the page's section lists, and the entries listed twice."""
    with open(os.path.join(ROOT, PAGE), encoding="utf-8") as f:
        lines = f.read().splitlines()
    if SECTION not in lines:
        return None, []
    start = lines.index(SECTION) + 1
    seen, twice = set(), []
    for line in lines[start:]:
        if line.startswith("## "):
            break
        m = ENTRY.match(line)
        if m:
            (twice.append(m.group(1)) if m.group(1) in seen else seen.add(m.group(1)))
    return seen, twice


def main():
    files = test_files()
    names, twice = listed()
    if names is None:
        print(f"{PAGE}: no section \"{SECTION}\"")
        return 1
    bad = 0
    for f in sorted(files - names):
        print(f"{f}: not listed in {PAGE} (\"{SECTION}\": a line \"- `{f}`: what it covers\")")
        bad += 1
    for f in sorted(names - files):
        print(f"{PAGE}: lists {f}, which is not a test file here (gone or renamed?)")
        bad += 1
    for f in twice:
        print(f"{PAGE}: lists {f} twice")
        bad += 1
    if bad:
        return 1
    print(f"test files: all {len(files)} listed in {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
