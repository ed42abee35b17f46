#!/usr/bin/env bash
# Check MobileGL on a real GPU machine: the C scenario client in every
# transport with both backends, then the benchmark arms (docs/BENCHMARKS.md,
# "On a GPU machine"). Usage:
#
#   tools/gpu_check.sh DIST [OUT]
#
# DIST holds lib/libmobilegl.so (+ libEGL.so.1 link) and bin/{mobilegl-server,
# mobilegl-bench,scenarios}; results go to OUT (default ./gpu-out).
#
# MobileGL is loaded with LD_PRELOAD, not LD_LIBRARY_PATH: NVIDIA's Vulkan
# ICD dlopens "libEGL.so.1" itself, and must get the system's (GLVND), not
# ours. The bench client dlopens our libEGL by path for the same reason.
set -u
dist=$(cd "$1" && pwd)
out=${2:-gpu-out}
mkdir -p "$out"
lib=$dist/lib/libmobilegl.so
export MOBILEGL_SERVER=$dist/bin/mobilegl-server
sys_egl=$(ldconfig -p | awk '/libEGL.so.1 /{print $NF; exit}')
: "${sys_egl:=/usr/lib/x86_64-linux-gnu/libEGL.so.1}"
export MOBILEGL_NATIVE_EGL=$sys_egl

# The default list, then the reply-call scenarios that run only by name.
named="occlusion_query get_tex_image timer_query multisample_mask rect_texture draw_indirect_restart compute_image_ssbo"
echo "== scenarios" | tee "$out/scenarios.txt"
timeout 120 "$dist/bin/scenarios" >"$out/scenarios-native.txt" 2>&1
timeout 120 "$dist/bin/scenarios" $named >>"$out/scenarios-native.txt" 2>&1
echo "native: $(grep 'scenarios failed' "$out/scenarios-native.txt" | tr '\n' ' ')" |
    tee -a "$out/scenarios.txt"
for backend in gles vulkan; do
    for t in monolith inproc spawn; do
        f="$out/scenarios-$backend-$t.txt"
        for args in "" "$named"; do
            # shellcheck disable=SC2086
            LD_PRELOAD=$lib MOBILEGL_BACKEND=$backend MOBILEGL_TRANSPORT=$t \
                timeout 180 "$dist/bin/scenarios" $args >>"$f" 2>&1
        done
        echo "$backend $t: $(grep -m1 GL_RENDERER "$f" | cut -c1-70) | $(grep 'scenarios failed' "$f" | tr '\n' ' ')" |
            tee -a "$out/scenarios.txt"
    done
done

[ -n "${GPU_CHECK_SKIP_BENCH:-}" ] && exit 0
echo "== bench" | tee "$out/bench.txt"
bench=$dist/bin/mobilegl-bench
timeout 300 "$bench" --egl "$sys_egl" --arm native --case all --repeats 3 --json \
    >"$out/bench-native.json" 2>"$out/bench-native.err"
for backend in gles vulkan; do
    for t in monolith inproc spawn; do
        arm=$t
        [ "$backend" = vulkan ] && arm=$t+vulkan
        MOBILEGL_BACKEND=$backend MOBILEGL_TRANSPORT=$t timeout 300 "$bench" \
            --egl "$dist/lib/libEGL.so.1" --arm "$arm" --case all --repeats 3 --json \
            >"$out/bench-${arm/+/_}.json" 2>"$out/bench-${arm/+/_}.err"
        echo "$arm: exit $?" | tee -a "$out/bench.txt"
    done
done
