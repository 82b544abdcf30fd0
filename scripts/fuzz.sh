#!/usr/bin/env bash
# Builds the libFuzzer targets of the importers with clang (ASan + UBSan) in build/fuzz and runs
# each for a bounded time (CI). Longer runs: FUZZ_SECONDS=3600 scripts/fuzz.sh, or run a target
# by hand: build/fuzz/tests/fuzz/fuzz_traceevent build/fuzz/corpus/json -max_total_time=3600 -jobs=4
# Crashes are written as crash-* files in build/fuzz/; reproduce with: <target> crash-file
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
BUILD=build/fuzz
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWHERETIME_FUZZ=ON -DWHERETIME_GUI=OFF -DWHERETIME_TESTS=OFF -DWHERETIME_BENCH=OFF -DWHERETIME_CUDA=OFF \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" >/dev/null
cmake --build "$BUILD" --target fuzz_traceevent fuzz_nsys -j"${JOBS:-2}"

# Seed corpora: the small JSON fixtures, and a cut-down real Nsight export.
mkdir -p "$BUILD/corpus/json" "$BUILD/corpus/nsys"
cp tests/data/*.json "$BUILD/corpus/json/" 2>/dev/null || true
TRACES=../shared/traces
if [ -f "$TRACES/nsys-2022.2_a100_saxpy-mpi.sqlite" ] && command -v sqlite3 >/dev/null; then
  seed="$BUILD/corpus/nsys/saxpy-mini.sqlite"
  if [ ! -f "$seed" ]; then
    sqlite3 "$seed" "ATTACH '$TRACES/nsys-2022.2_a100_saxpy-mpi.sqlite' AS s;
      CREATE TABLE EXPORT_META_DATA AS SELECT * FROM s.EXPORT_META_DATA LIMIT 3;
      CREATE TABLE StringIds AS SELECT * FROM s.StringIds WHERE id IN
        (SELECT demangledName FROM s.CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT nameId FROM s.CUPTI_ACTIVITY_KIND_RUNTIME UNION SELECT textId FROM s.NVTX_EVENTS);
      CREATE TABLE TARGET_INFO_GPU AS SELECT id, name FROM s.TARGET_INFO_GPU;
      CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL AS SELECT start, end, deviceId, streamId, correlationId, demangledName, shortName, gridX, blockX, registersPerThread FROM s.CUPTI_ACTIVITY_KIND_KERNEL;
      CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY AS SELECT start, end, deviceId, streamId, correlationId, bytes, copyKind FROM s.CUPTI_ACTIVITY_KIND_MEMCPY LIMIT 4;
      CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME AS SELECT start, end, globalTid, correlationId, nameId FROM s.CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IN (SELECT correlationId FROM s.CUPTI_ACTIVITY_KIND_KERNEL);
      CREATE TABLE NVTX_EVENTS AS SELECT start, end, eventType, text, textId, globalTid FROM s.NVTX_EVENTS;
      VACUUM;"
  fi
fi

status=0
for t in fuzz_traceevent:json fuzz_nsys:nsys; do
  target=${t%%:*}; corpus=$BUILD/corpus/${t##*:}
  echo "== $target for ${SECONDS_EACH}s"
  (cd "$BUILD" && "./tests/fuzz/$target" "corpus/${t##*:}" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -print_final_stats=1 2>&1 | tail -15) || status=1
done
exit $status
