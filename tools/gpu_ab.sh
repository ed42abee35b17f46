#!/usr/bin/env bash
# A/B (or A/B/C...) of MobileGL builds on a GPU machine: R rounds, each
# round native first, then every build in the GLES monolith, inproc and
# spawn lanes, the builds' order rotated from round to round (so no build
# always runs right after another: the device drifts within a round).
# Prints the per-arm median and best round of every case, and every
# round's value for vanilla, ubo and sodium: on the H200 a process lands in
# one of two modes about 1.7x apart (native included), so medians of a few
# rounds mix modes and the best round is the fairer comparison of code
# (docs/BENCHMARKS.md, "On a GPU machine"). Usage:
#
#   tools/gpu_ab.sh ROUNDS OUT BENCH DIST_A [DIST_B ...]
#
# Each DIST holds lib/libmobilegl.so (+ libEGL.so.1 link) and
# bin/mobilegl-server; BENCH is a mobilegl-bench binary. The arms are named
# after the DIST folders' base names. PIN (e.g. "taskset -c 4,5") prefixes
# every run. MOBILEGL_NATIVE_EGL defaults to the loader's libEGL.so.1.
set -u
rounds=$1
out=$2
bench=$3
shift 3
dists=()
for d in "$@"; do dists+=("$(cd "$d" && pwd)"); done
mkdir -p "$out"
: "${MOBILEGL_NATIVE_EGL:=$(ldconfig -p | awk '/libEGL.so.1 /{print $NF; exit}')}"
export MOBILEGL_NATIVE_EGL
pin=${PIN:-}
n=${#dists[@]}
for r in $(seq 1 "$rounds"); do
    $pin timeout 200 "$bench" --egl "$MOBILEGL_NATIVE_EGL" --arm native --case all --repeats 3 \
        --json >"$out/r$r-native.json" 2>/dev/null
    for t in monolith inproc spawn; do
        for i in $(seq 0 $((n - 1))); do
            d=${dists[$(((i + r - 1) % n))]}
            name=$(basename "$d")
            $pin env MOBILEGL_SERVER="$d/bin/mobilegl-server" MOBILEGL_BACKEND=gles \
                MOBILEGL_TRANSPORT=$t timeout 200 "$bench" --egl "$d/lib/libEGL.so.1" \
                --arm "$name-$t" --case all --repeats 3 --json >"$out/r$r-$name-$t.json" 2>/dev/null
        done
    done
done
names=()
for d in "${dists[@]}"; do names+=("$(basename "$d")"); done
python3 - "$out" "$rounds" "${names[@]}" <<'PY'
import json, statistics as st, sys
out, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
arms = ["native"] + [f"{v}-{t}" for t in ["monolith", "inproc", "spawn"] for v in names]
vals = {}
for r in range(1, rounds + 1):
    for a in arms:
        try:
            for line in open(f"{out}/r{r}-{a}.json"):
                if line.startswith("{") and '"case"' in line:
                    d = json.loads(line)
                    vals.setdefault((d["case"], a), []).append(d)
        except FileNotFoundError:
            pass
cases = ["vanilla", "blend", "sodium", "ubo", "texture", "readback"]
for title, pick in [("median", st.median), ("best round", min)]:
    print(f"wall ns/op, {title} of {rounds} rounds (ratio to native's {title}):")
    print("| case | " + " | ".join(arms) + " |")
    print("|---" * (len(arms) + 1) + "|")
    for case in cases:
        if (case, "native") not in vals:
            continue
        nat = pick([d["wall_ns_per_op"] for d in vals[(case, "native")]])
        row = [case, f"{nat:.0f}"]
        for a in arms[1:]:
            v = vals.get((case, a))
            if not v:
                row.append("-")
                continue
            w = pick([d["wall_ns_per_op"] for d in v])
            bad = "" if all(d["ok"] for d in v) else " FAILED"
            row.append(f"{w:.0f} ({w / nat:.2f}×){bad}")
        print("| " + " | ".join(row) + " |")
    print()
print("every round, wall ns/op:")
for case in ["vanilla", "ubo", "sodium"]:
    for a in arms:
        v = vals.get((case, a))
        if v:
            print(case, a, " ".join(f"{d['wall_ns_per_op']:.0f}" for d in v))
PY
