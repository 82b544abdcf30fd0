#!/usr/bin/env bash
# The README's test command: installs what is missing, builds with ASan+UBSan (preset asan),
# runs the importers' fuzzers for a bounded time, then every test that needs no GPU,
# offscreen. Exits non-zero when any test fails.
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
