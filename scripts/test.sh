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

# The compare gate, as a CI job would use it (docs/compare.md): two captures of one tiny
# configuration (3 repeats of 5 steps each) must not read as slower by more than 25% (wide: a loaded CI machine drifts) with the
# whole interval above it.
gate_dir=$(mktemp -d)
trap 'rm -rf "$gate_dir"' EXIT
for side in base other; do
  build/asan/app/cli/wheretime capture --workload gcn --preset tiny --backend cpu --steps 5 --repeat 3 \
    -o "$gate_dir/$side.wt" >/dev/null
done
build/asan/app/cli/wheretime compare "$gate_dir/base.wt" "$gate_dir/other.wt" --repeats --fail-if-slower 25%
