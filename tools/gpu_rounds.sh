#!/usr/bin/env bash
# Interleaved rounds of the benchmark on a GPU machine: native, then the
# GLES backend in monolith, inproc and spawn, R times; prints per-arm
# medians (docs/BENCHMARKS.md, "On a GPU machine"). Usage:
#
#   tools/gpu_rounds.sh DIST [ROUNDS] [OUT]
#
# DIST holds lib/libmobilegl.so (+ libEGL.so.1 link) and
# bin/{mobilegl-server,mobilegl-bench}. MOBILEGL_NATIVE_EGL defaults to the
# loader's libEGL.so.1 (GLVND on an NVIDIA machine).
set -u
dist=$(cd "$1" && pwd)
rounds=${2:-5}
out=${3:-gpu-rounds}
mkdir -p "$out"
: "${MOBILEGL_NATIVE_EGL:=$(ldconfig -p | awk '/libEGL.so.1 /{print $NF; exit}')}"
export MOBILEGL_NATIVE_EGL MOBILEGL_SERVER=$dist/bin/mobilegl-server
bench=$dist/bin/mobilegl-bench
for r in $(seq 1 "$rounds"); do
    timeout 200 "$bench" --egl "$MOBILEGL_NATIVE_EGL" --arm native --case all --repeats 3 \
        --json >"$out/r$r-native.json" 2>/dev/null
    for t in monolith inproc spawn; do
        MOBILEGL_BACKEND=gles MOBILEGL_TRANSPORT=$t timeout 200 "$bench" \
            --egl "$dist/lib/libEGL.so.1" --arm "$t" --case all --repeats 3 \
            --json >"$out/r$r-$t.json" 2>/dev/null
    done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics as st, sys
out, rounds = sys.argv[1], int(sys.argv[2])
vals = {}
for r in range(1, rounds + 1):
    for arm in ["native", "monolith", "inproc", "spawn"]:
        for line in open(f"{out}/r{r}-{arm}.json"):
            if line.startswith("{") and '"case"' in line:
                d = json.loads(line)
                vals.setdefault((d["case"], arm), []).append(d)
print("| case | native | monolith | inproc | inproc thread CPU | spawn |")
print("|---|---:|---:|---:|---:|---:|")
for case in ["vanilla", "blend", "sodium", "ubo", "texture", "readback"]:
    med = lambda arm, k: st.median(d[k] for d in vals[(case, arm)])
    n, nt = med("native", "wall_ns_per_op"), med("native", "thread_cpu_ns_per_op")
    row = [case, f"{n:.0f}"]
    for arm in ["monolith", "inproc", "spawn"]:
        w = med(arm, "wall_ns_per_op")
        ok = all(d["ok"] for d in vals[(case, arm)])
        row.append(f"{w:.0f} ({w / n:.2f}×)" + ("" if ok else " FAILED"))
        if arm == "inproc":
            t = med(arm, "thread_cpu_ns_per_op")
            row.append(f"{t:.0f} ({t / nt:.2f}×)")
    print("| " + " | ".join(row) + " |")
PY
