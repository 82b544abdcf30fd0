#!/usr/bin/env bash
# The README's test command: installs what is missing, builds with ASan+UBSan (preset asan),
# runs the importers' fuzzers for a bounded time, then every test that needs no GPU,
# offscreen, then the compare gate on two tiny captures (`compare --fail-if-slower`). Exits
# non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh --dev
export QT_QPA_PLATFORM=offscreen
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

cmake --preset asan
cmake --build build/asan -j"$(nproc)"

# Short, bounded fuzzing of the importers, damaged wheretime files and chunk decoders (libFuzzer, clang); FUZZ_SECONDS=0 skips it.
if [ "${FUZZ_SECONDS:-20}" != 0 ] && [ -f scripts/fuzz.sh ] && [ -d tests/fuzz ]; then
  FUZZ_SECONDS="${FUZZ_SECONDS:-20}" bash scripts/fuzz.sh
fi

ctest --test-dir build/asan -LE gpu --output-on-failure -j"$(nproc)" --timeout 600

# The compare gate, as a CI job would use it (docs/compare.md): 6 repeats of 5 steps of one tiny
# configuration, the odd runs as BASE and the even ones as OTHER (interleaved, so a change of the
# machine's load or a cold first run weighs on both sides: two files captured one after the other
# differed by 27% here), must not read as slower by more than 25% with the whole interval above it.
gate_dir=$(mktemp -d)
trap 'rm -rf "$gate_dir"' EXIT
build/asan/app/cli/wheretime capture --workload gcn --preset tiny --backend cpu --steps 5 --repeat 6 \
  -o "$gate_dir/runs.wt" >/dev/null
g="$gate_dir/runs.wt"
build/asan/app/cli/wheretime compare "$g:1" "$g:3" "$g:5" --vs "$g:2" "$g:4" "$g:6" --fail-if-slower 25%
