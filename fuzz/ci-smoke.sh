#!/usr/bin/env bash
# Fuzz smoke run for CI (docs/FUZZING.md): every cargo-fuzz target for
# FUZZ_SECONDS (default 30) seconds, starting from the committed corpus,
# one process each, with AddressSanitizer and debug assertions (overflow
# checks) on.
#
# Exit status: 0 when every target ran clean, or when the tools cannot be
# had here (cargo-fuzz not installable, no nightly toolchain and no
# RUSTC_BOOTSTRAP fallback): then it prints "fuzz smoke: SKIPPED: <why>".
# Non-zero when a target crashes, hangs (-timeout), trips a sanitizer, or
# the fuzz targets no longer build with a working toolchain. A crash input
# is left in fuzz/artifacts/<target>/ and the reproducer command printed.
set -u
cd "$(dirname "$0")" || exit 1

secs=${FUZZ_SECONDS:-30}
targets=(records server_loop control events)
work=corpus-work/ci-smoke

skip() {
    echo "fuzz smoke: SKIPPED: $*"
    exit 0
}

command -v cargo >/dev/null 2>&1 || skip "no cargo on PATH"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz smoke: installing cargo-fuzz"
    cargo install cargo-fuzz --locked >/tmp/cargo-fuzz-install.log 2>&1 ||
        skip "cargo install cargo-fuzz failed (log: /tmp/cargo-fuzz-install.log)"
fi

# A nightly toolchain (sanitizers need -Z flags); failing that, the stable
# one with RUSTC_BOOTSTRAP=1.
tc=()
fallback=0
if command -v rustup >/dev/null 2>&1 && rustup run nightly rustc --version >/dev/null 2>&1; then
    tc=(+nightly)
elif command -v rustup >/dev/null 2>&1 &&
    rustup toolchain install nightly --profile minimal >/tmp/rustup-nightly.log 2>&1; then
    tc=(+nightly)
else
    echo "fuzz smoke: no nightly toolchain; trying the default one with RUSTC_BOOTSTRAP=1"
    export RUSTC_BOOTSTRAP=1
    fallback=1
fi

if ! cargo "${tc[@]}" fuzz build -a >/tmp/fuzz-build.log 2>&1; then
    if [ "$fallback" = 1 ]; then
        tail -20 /tmp/fuzz-build.log
        skip "the fuzz targets do not build without a nightly toolchain (log: /tmp/fuzz-build.log)"
    fi
    tail -40 /tmp/fuzz-build.log
    echo "fuzz smoke: FAILED: the fuzz targets do not build (log: /tmp/fuzz-build.log)"
    exit 1
fi

failed=()
for t in "${targets[@]}"; do
    mkdir -p "$work/$t"
    log="$work/$t.log"
    cargo "${tc[@]}" fuzz run -a "$t" "$work/$t" "corpus/$t" -- \
        -max_total_time="$secs" -timeout=10 -print_final_stats=1 >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ "$rc" = 0 ]; then
        echo "fuzz smoke: $t: ${runs:-?} runs, ${rate:-?} exec/s, clean"
    else
        echo "fuzz smoke: $t: FAILED (exit $rc) after ${runs:-?} runs"
        grep -E 'panicked|ERROR|SUMMARY|Test unit written|artifact_prefix' "$log" | head -20
        for a in artifacts/"$t"/*; do
            [ -e "$a" ] && echo "  reproduce: (cd fuzz && cargo ${tc[*]} fuzz run -a $t $a)"
        done
        failed+=("$t")
    fi
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz smoke: FAILED: ${failed[*]}"
    exit 1
fi
echo "fuzz smoke: ${#targets[@]} targets clean (${secs}s each)"
