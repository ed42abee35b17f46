#!/usr/bin/env python3
"""Draw a piglit test list shaped like the public one, from the tests it leaves out.

The public list (../shared/conformance/piglit-public.tsv) is a stratified sample
of piglit's `opengl` and `shader` profiles; a held-out list of the same shape
judges the work. This draws such a list from the installed piglit (Debian's
`/usr/lib/x86_64-linux-gnu/piglit`): for each area (`spec@<area>`) of the public
list, FACTOR times as many tests of that area that the public list does not
hold, desktop-GL binaries only (no `shader_runner_gles*`), in the public list's
format (`name<TAB>argv as JSON`). Run it with

    python3 tools/piglit_sample.py [--seed N] [--factor F] > /tmp/sample.tsv
    cargo xtask piglit --lane monolith --backend gles --list /tmp/sample.tsv --no-rerun

(the run writes target/piglit/<lane>.tsv: keep a copy of the public results
first). `--all` writes every runnable test of the two profiles instead.
"""
import argparse
import ast
import collections
import gzip
import json
import os
import random
import sys
import xml.etree.ElementTree as ET

PIGLIT = os.environ.get("PIGLIT_ROOT", "/usr/lib/x86_64-linux-gnu/piglit")
HERE = os.path.dirname(os.path.abspath(__file__))
PUBLIC = os.path.join(HERE, "..", "..", "shared", "conformance", "piglit-public.tsv")


def area(name):
    parts = name.split("@")
    return "@".join(parts[:2]) if len(parts) > 1 else parts[0]


def population():
    tests = {}
    for profile in ("opengl.xml.gz", "shader.xml.gz"):
        root = ET.parse(gzip.open(os.path.join(PIGLIT, "tests", profile))).getroot()
        for t in root:
            opts = {o.get("name"): o.get("value") for o in t}
            if t.get("type") not in ("gl", "shader") or "command" not in opts:
                continue
            cmd = ast.literal_eval(opts["command"])
            if cmd[0].startswith(("shader_runner_gles", "glslparsertest_gles")):
                continue
            if not os.path.exists(os.path.join(PIGLIT, "bin", cmd[0])):
                continue
            tests[t.get("name")] = cmd + ["-auto", "-fbo"]
    return tests


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--factor", type=float, default=2.0)
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    tests = population()
    if args.all:
        chosen = sorted(tests)
    else:
        public = [l.split("\t")[0] for l in open(PUBLIC) if l.strip()]
        by_area = collections.defaultdict(list)
        for name in sorted(tests):
            if name not in public:
                by_area[area(name)].append(name)
        rnd = random.Random(args.seed)
        chosen = []
        for a, k in sorted(collections.Counter(area(n) for n in public).items()):
            pool = by_area.get(a, [])
            chosen += rnd.sample(pool, min(len(pool), round(k * args.factor)))
        chosen.sort()
    for name in chosen:
        sys.stdout.write(f"{name}\t{json.dumps(tests[name])}\n")


if __name__ == "__main__":
    main()
