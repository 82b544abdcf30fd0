#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build/fuzz and runs each for a bounded
# time (CI): the importers (fuzz_traceevent, fuzz_nsys), names through the Chrome export and
# re-import (fuzz_names: UTF-8 repair, the cut, byte-for-byte round trip), the table writer
# (fuzz_tablewriter: CSV, JSON and text of any table), opening damaged wheretime files
# (fuzz_wtfile: reader, scope tree, chunk decoders, breakdowns) and the chunk decoders alone
# (fuzz_chunks). FUZZ_SECONDS sets the time per target (default 60).
#   scripts/fuzz.sh --long    each target until FUZZ_RUNS executions (default 1000000), in
#                             FUZZ_JOBS processes (default 1), at nice FUZZ_NICE (default 19),
#                             for at most FUZZ_MAX_SECONDS (default: no limit); prints executions
#                             and results per target (docs/robustness.md records them)
# Or run a target by hand: build/fuzz/tests/fuzz/fuzz_traceevent build/fuzz/corpus/json -max_total_time=3600 -jobs=4
# Crashes are written as crash-* files in build/fuzz/; reproduce with: <target> crash-file
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
LONG=0
if [ "${1:-}" = "--long" ]; then
  LONG=1
fi
TARGETS=${FUZZ_TARGETS:-"fuzz_traceevent:json fuzz_nsys:nsys fuzz_names:names fuzz_tablewriter:tables fuzz_wtfile:wtfile fuzz_chunks:chunks"}
BUILD=build/fuzz
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWHERETIME_FUZZ=ON -DWHERETIME_GUI=OFF -DWHERETIME_TESTS=OFF -DWHERETIME_BENCH=OFF -DWHERETIME_CUDA=OFF \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" >/dev/null
cmake --build "$BUILD" --target fuzz_traceevent fuzz_nsys fuzz_names fuzz_tablewriter fuzz_wtfile fuzz_chunks -j"${JOBS:-2}"

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

# Names (fuzz_names): byte 0 = repeat - 1, bytes 1-2 = the kernel name's length, then the
# kernel's and the scope's bytes: plain, not UTF-8 (ff fe, a sequence cut short, a surrogate),
# and a euro sign that a repeat puts across the cut.
mkdir -p "$BUILD/corpus/names"
printf '\000\006\000gemm_kstep' >"$BUILD/corpus/names/plain"
printf '\000\012\000kernel\377\376_xlayer\303' >"$BUILD/corpus/names/not-utf8"
printf '\077\003\000\355\240\200a\342\202\254b' >"$BUILD/corpus/names/surrogate-euro"
printf '\077\106\000%s\342\202\254%s' "$(printf 'k%.0s' $(seq 1 67))" "$(printf 's%.0s' $(seq 1 70))" >"$BUILD/corpus/names/cut-euro"

# Tables (fuzz_tablewriter): byte 0 = columns - 1, byte 1 = rows, byte 2 = flags, a unit per
# column, then cells (type byte; 8 bytes for numbers; a length and bytes for text).
mkdir -p "$BUILD/corpus/tables"
printf '\002\002\001\000\001\003\005gemm,\001\020\047\000\000\000\000\000\000\003\003a\nb\002\000\000\000\000\000\000\340\077' >"$BUILD/corpus/tables/two-rows"
printf '\000\001\002\000\003\004\377\376"x' >"$BUILD/corpus/tables/not-utf8"

# Damaged wheretime files: small synthetic runs and copies with damaged rows and pages
# (written by fuzz_wtfile itself), plus a real capture when a built CLI is at hand.
mkdir -p "$BUILD/corpus/wtfile" "$BUILD/corpus/chunks"
WT_FUZZ_SEEDS="$PWD/$BUILD/corpus/wtfile" "$BUILD/tests/fuzz/fuzz_wtfile" >/dev/null
CLI=${WHERETIME_CLI:-}
for c in build/release/app/cli/wheretime build/dev/app/cli/wheretime build/asan/app/cli/wheretime; do
  [ -z "$CLI" ] && [ -x "$c" ] && CLI=$c
done
if [ -n "$CLI" ] && [ ! -f "$BUILD/corpus/wtfile/capture.wt" ] && command -v sqlite3 >/dev/null; then
  if "$CLI" capture --workload gcn --preset tiny --backend cpu --steps 1 --warmup 0 \
       --set layers=1 -o "$BUILD/corpus/wtfile/capture.wt" >/dev/null 2>&1; then
    sqlite3 "$BUILD/corpus/wtfile/capture.wt" "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;" >/dev/null
  fi
fi
# Chunk blobs: one byte picks the decoder, 16 bytes of header, then the blob (the sqlite3
# shell's writefile() writes them).
if [ -f "$BUILD/corpus/wtfile/small.wt" ] && command -v sqlite3 >/dev/null; then
  (cd "$BUILD/corpus/chunks" && sqlite3 ../wtfile/small.wt \
    "SELECT writefile('seed-a' || id, x'00' || zeroblob(16) || data) FROM activity_chunks LIMIT 4;
     SELECT writefile('seed-i' || id, x'01' || zeroblob(16) || data) FROM scope_instance_chunks LIMIT 4;
     SELECT writefile('seed-c' || id, x'02' || zeroblob(16) || data) FROM api_call_chunks LIMIT 4;" >/dev/null)
fi
# Instance chunks of format 2 (with host threads, schema version 4): an import's.
if [ -n "$CLI" ] && command -v sqlite3 >/dev/null; then
  rm -f "$BUILD/corpus/chunks-import.wt"
  if "$CLI" import tests/data/kineto-mini.json -o "$BUILD/corpus/chunks-import.wt" >/dev/null 2>&1; then
    (cd "$BUILD/corpus/chunks" && sqlite3 ../chunks-import.wt \
      "SELECT writefile('seed-t' || id, x'01' || zeroblob(16) || data) FROM scope_instance_chunks LIMIT 4;" >/dev/null)
  fi
fi
# Per-step totals blobs (decoder 3): 8 zero bytes, the step count (little-endian), the blob.
for f in "$BUILD"/corpus/wtfile/*.wt; do
  [ -f "$f" ] && command -v sqlite3 >/dev/null && command -v python3 >/dev/null || continue
  sqlite3 "$f" "SELECT run_id, steps, hex(data) FROM step_totals LIMIT 2" 2>/dev/null |
    python3 -c 'import sys, struct, os
for line in sys.stdin:
    run, steps, blob = line.strip().split("|")
    name = os.path.join(sys.argv[1], "seed-s" + os.path.basename(sys.argv[2]) + run)
    open(name, "wb").write(b"\x03" + bytes(8) + struct.pack("<q", int(steps)) + bytes.fromhex(blob))' \
      "$BUILD/corpus/chunks" "$f" || true
done

# Less ASan bookkeeping per input (no malloc fill, a small quarantine): 2-3x more executions.
export ASAN_OPTIONS=${ASAN_OPTIONS:-max_malloc_fill_size=0:quarantine_size_mb=16:detect_leaks=0}
status=0
for t in $TARGETS; do
  target=${t%%:*}; corpus=$BUILD/corpus/${t##*:}
  mkdir -p "$corpus"
  if [ "$LONG" = 1 ]; then
    # FUZZ_JOBS processes share the corpus, each runs its part of FUZZ_RUNS; logs in build/fuzz/long-*.
    runs=${FUZZ_RUNS:-1000000}; jobs=${FUZZ_JOBS:-1}
    echo "== $target for $runs executions ($jobs jobs of $((runs / jobs)))"
    rm -f "$BUILD"/long-"$target"-*.log
    pids=()
    for j in $(seq 1 "$jobs"); do
      (cd "$BUILD" && exec nice -n "${FUZZ_NICE:-19}" "./tests/fuzz/$target" "corpus/${t##*:}" -runs=$((runs / jobs)) \
         -max_total_time="${FUZZ_MAX_SECONDS:-0}" -timeout=30 \
         -rss_limit_mb=2048 -print_final_stats=1 >"long-$target-$j.log" 2>&1) &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || status=1; done
    grep -hE "^(Done|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY|==[0-9]+==ERROR)" "$BUILD"/long-"$target"-*.log || true
  else
    echo "== $target for ${SECONDS_EACH}s"
    # The whole log in build/fuzz/short-<target>.log; on a finding, the error and its top frames.
    if (cd "$BUILD" && "./tests/fuzz/$target" "corpus/${t##*:}" -max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=2048 \
       -print_final_stats=1 >"short-$target.log" 2>&1); then
      tail -6 "$BUILD/short-$target.log"
    else
      status=1
      grep -m1 -A24 -E "==[0-9]+==ERROR|runtime error|^SUMMARY" "$BUILD/short-$target.log" || tail -30 "$BUILD/short-$target.log"
      tail -4 "$BUILD/short-$target.log"
    fi
  fi
done
exit $status
