#!/usr/bin/env bash
# The GPU check: one command for a machine with an NVIDIA GPU, the CUDA toolkit and no Qt
# (and no network). It builds (preset gpu: Release, CUDA on, no GUI) unless a usable build is
# already there, runs the `gpu`-labelled tests when Qt Test is available, captures gcn and
# transformer at the paper preset for every softmax variant (a few steps each), measures the
# CUPTI overhead (traced vs --no-trace) and prints a table:
#   run, kernels, step time, softmax layer time and share, dropped records, overhead.
# Captures go to OUTDIR/captures.wt; the table to OUTDIR/gpu-check.md. Budget: under 8 minutes.
#
#   scripts/gpu-check.sh OUTDIR [--steps N] [--quick]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-check.sh OUTDIR [--steps N] [--quick]}
shift
steps=3
quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    *) echo "gpu-check.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
start=$(date +%s)
log() { echo "[gpu-check +$(( $(date +%s) - start ))s] $*"; }

nvidia-smi -L 2>/dev/null || log "nvidia-smi not found"
bin=build/gpu/app/cli/wheretime
if ! "$bin" --version 2>/dev/null | grep -q "(CUDA)"; then
  log "building (preset gpu)"
  cmake --preset gpu >"$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
  cmake --build build/gpu -j"$(nproc)" >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi
"$bin" --version

if [ -f build/gpu/CTestTestfile.cmake ] && [ -n "$(ctest --test-dir build/gpu -N -L gpu 2>/dev/null | grep 'Test *#')" ]; then
  log "gpu-labelled tests"
  ctest --test-dir build/gpu -L gpu --output-on-failure --timeout 120 2>&1 | tail -25
else
  log "gpu-labelled tests not built here (no Qt Test): skipped"
fi

db="$out/captures.wt"
rm -f "$db" "$db-wal" "$db-shm"
variants=$("$bin" workloads 2>/dev/null | sed -n '/^softmax variants:/,$p' | awk 'NR>1 && /^  [a-z]/ {print $1}')
[ -n "$variants" ] || variants="full adaptive"
[ "$quick" = 1 ] && variants="adaptive"
summary="$out/captures.jsonl"
: >"$summary"
for w in gcn transformer; do
  for v in $variants; do
    log "capture $w/$v"
    timeout 150 "$bin" capture --workload "$w" --variant "$v" --preset paper --backend cuda --steps "$steps" --warmup 1 \
      --name "$w-$v" -o "$db" --json >>"$summary" || log "capture $w/$v failed (exit $?)"
  done
  # CUPTI overhead: the same steps traced and untraced (adaptive), alternating, twice each.
  for rep in 1 2; do
    timeout 150 "$bin" capture --workload "$w" --variant adaptive --preset paper --backend cuda --steps "$steps" --warmup 1 \
      --name "$w-overhead" -o "$out/overhead.wt" --json | sed 's/^{/{"overhead":true,/' >>"$summary"
    timeout 150 "$bin" capture --workload "$w" --variant adaptive --preset paper --backend cuda --steps "$steps" --warmup 1 \
      --no-trace --json >>"$summary"
  done
done
rm -f "$out/overhead.wt" "$out/overhead.wt-wal" "$out/overhead.wt-shm"

if [ -f scripts/softmax-vs-pytorch.py ] && python3 -c "import torch" 2>/dev/null && [ "$quick" = 0 ]; then
  log "PyTorch AdaptiveLogSoftmaxWithLoss on the same shapes"
  timeout 180 python3 scripts/softmax-vs-pytorch.py 2>&1 | tee "$out/pytorch.txt" | tail -20
fi

log "table"
python3 - "$summary" <<'PY' | tee "$out/gpu-check.md"
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
traced = {}
untraced = {}
for r in rows:
    if r.get("overhead"):
        traced.setdefault(r["workload"], []).append(r["step_ns"])
    elif not r["traced"]:
        untraced.setdefault(r["workload"], []).append(r["step_ns"])
def overhead(w):
    t, u = traced.get(w), untraced.get(w)
    return f"{(statistics.median(t) / statistics.median(u) - 1) * 100:+.2f}%" if t and u else "n/a"
print("| run | device | kernels | step time | softmax layer / step | softmax share | dropped | CUPTI overhead |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    if r["traced"] and not r.get("overhead"):
        print(f"| {r['name']} | {r['device']} | {r['kernels']} | {r['step_ns'] / 1e6:.2f} ms | "
              f"{r['softmax_ns_per_step'] / 1e6:.2f} ms | {r['softmax_share'] * 100:.1f}% | {r['dropped_records']} | "
              f"{overhead(r['workload'])} |")
PY
log "done in $(( $(date +%s) - start )) s"
