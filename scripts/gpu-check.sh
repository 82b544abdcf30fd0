#!/usr/bin/env bash
# The GPU check: one command, run from the GPU bundle (scripts/gpu-bundle.sh) on a machine with
# an NVIDIA GPU, the CUDA 13 libraries and no Qt, no network, no build. It validates numbers,
# not only that things ran, and stops at the first failure with a non-zero exit and one line
# that starts "gpu-check: FAILED".
#
#   1. setup      the CUDA libraries are found (else searched for), the CUDA plugin is there
#   2. gpu tests  bin/tst_capture_gpu: a CUPTI capture attributed to layers, readable kernel
#                 names (the CPU capture's op names), nothing dropped or incomplete
#   3. numbers    every workload and variant at the tiny preset: the loss after 3 steps on CUDA
#                 equals the CPU backend's within a relative 1e-3 (float32 with other
#                 summation orders differs by about 1e-6; a wrong kernel by far more)
#   4. captures   every workload and variant at the paper preset, 3 traced steps after 1
#                 warm-up, into OUTDIR/captures.wt (no NaN loss, status complete)
#   5. overhead   CUPTI overhead: the adaptive variant traced vs --no-trace, alternating
#   6. pytorch    scripts/softmax-vs-pytorch.py: PyTorch's AdaptiveLogSoftmaxWithLoss on the
#                 paper shapes, against each variant's softmax layer time
#                 and each capture's roofline (`wheretime roofline --device h200`: per op its time
#                 against the device's bound; the dry run against this CPU's calibration)
#   7. scaling    the study's sweep: the GCN (small preset) at hidden 256, 512, 1024, 2048 for
#                 every variant (`capture --sweep hidden=... --sweep variant=...`) into
#                 OUTDIR/scaling-gcn.wt, its table (`wheretime sweep --layer softmax --json`) in
#                 OUTDIR/scaling-gcn.json (dry run: tiny preset, hidden 8 and 16)
# Then OUTDIR/gpu-check.md: per workload and variant, step time, softmax layer time and share,
# speedup against adaptive and against PyTorch, CUPTI overhead, dropped records, the loss
# check. Budget: 8 minutes on an H100/H200 with 16 cores; every command runs under a timeout
# cut to what is left of it.
#
#   scripts/gpu-check.sh OUTDIR [--steps N]
#   scripts/gpu-check.sh --dry-run OUTDIR     CPU backend, tiny preset, same stages and table
#                                             (the test suite runs it: the plumbing is tested)
# The CLI: $WHERETIME, else the bundle's bin/wheretime beside this script's folder.
set -uo pipefail

dry=0
if [ "${1:-}" = "--dry-run" ]; then
  dry=1
  shift
fi
out=${1:-}
[ -n "$out" ] || { echo "usage: scripts/gpu-check.sh [--dry-run] OUTDIR [--steps N]" >&2; exit 2; }
shift
steps=3
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    *) echo "gpu-check.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
budget=${GPU_CHECK_BUDGET_S:-480}
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
log() { echo "[gpu-check +$(elapsed)s] $*"; }
results="$out/results.jsonl"      # one JSON object per CLI run, tagged with its stage
notes="$out/notes.txt"            # stage outcomes, for the table
: >"$results"
: >"$notes"
stage=setup

write_table() {
  python3 - "$results" "$notes" "$out/pytorch.json" "$dry" "$1" <<'PY' >"$out/gpu-check.md"
import json, os, statistics, sys
results, notes, pytorch_file, dry, status = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5]
rows = [json.loads(l) for l in open(results) if l.strip().startswith("{")]
note = [l.rstrip("\n") for l in open(notes)]
pt = {}
if os.path.exists(pytorch_file):
    for r in json.load(open(pytorch_file)):
        pt[r["shape"]] = r
print("# wheretime GPU check" + (" (dry run: CPU backend, tiny preset)" if dry else ""))
print()
print(f"Status: **{status}**")
print()
for n in note:
    print(f"- {n}")
print()
caps = [r for r in rows if r["stage"] == "captures"]
traced = {}
untraced = {}
for r in rows:
    if r["stage"] == "overhead":
        (traced if r["traced"] else untraced).setdefault(r["workload"], []).append(r["step_ns"])
for r in caps:
    if r["variant"] == "adaptive":
        traced.setdefault(r["workload"], []).append(r["step_ns"])
def overhead(w):
    t, u = traced.get(w), untraced.get(w)
    if not t or not u:
        return "n/a"
    return f"{(statistics.median(t) / statistics.median(u) - 1) * 100:+.1f}%"
# softmax_layer_ns_per_step: every phase of the layer (softmax_ns_per_step is forward + backward).
layer_ns = lambda r: r.get("softmax_layer_ns_per_step", r["softmax_ns_per_step"])
adaptive = {r["workload"]: layer_ns(r) for r in caps if r["variant"] == "adaptive"}
phases = {(r["workload"], r["variant"]): r for r in rows if r["stage"] == "softmax-phases"}
losses = {}
for r in rows:
    if r["stage"] == "numbers":
        losses.setdefault((r["workload"], r["variant"]), {})[r["against"]] = r["loss"]
if caps:
    print("| workload | variant | device | kernels | step time | softmax layer / step | of which forward + backward "
          "| softmax share of kernel time | speedup vs adaptive | vs PyTorch AdaptiveLogSoftmaxWithLoss | "
          + ("tracer overhead (CPU tracer)" if dry else "CUPTI overhead") + " | dropped records | loss check (tiny, 3 steps) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in caps:
    w, v = r["workload"], r["variant"]
    sm = layer_ns(r)
    vs_adaptive = f"{adaptive[w] / sm:.2f}x" if sm and w in adaptive else "n/a"
    p = phases.get((w, v))
    fb = p["forward_ns_per_step"] + p["backward_ns_per_step"] if p else 0
    fb_text = f"{fb / 1e6:.3f} ms" if p else "n/a"
    if w in pt and fb:
        vs_pt = f"{pt[w]['median_ms'] * 1e6 / fb:.2f}x ({pt[w]['median_ms']:.2f} ms)"
    elif dry:
        vs_pt = "skipped (dry run)"
    else:
        vs_pt = "n/a"
    l = losses.get((w, v), {})
    if "cuda" in l or "cpu-again" in l:
        other = l.get("cuda", l.get("cpu-again"))
        ref = l.get("cpu")
        check = f"{other:.6f} vs CPU {ref:.6f}" if other is not None and ref is not None else "missing"
    else:
        check = "not run"
    print(f"| {w} | {v} | {r['device']} | {r['kernels']} | {r['step_ns'] / 1e6:.3f} ms | {sm / 1e6:.3f} ms | {fb_text} | "
          f"{r['softmax_share'] * 100:.1f}% | {vs_adaptive} | {vs_pt} | {overhead(w)} | {r['dropped_records']} | {check} |")
print()
print("Step time: median wall time of the traced steps. Softmax layer: kernel time under the softmax layer "
      "scope per step (forward, backward and update phases), then its forward + backward part. "
      "Speedup vs adaptive: the adaptive variant's softmax layer time over this variant's. "
      "vs PyTorch: PyTorch's forward + backward time of the module on the same shape over this variant's "
      "forward + backward softmax time (above 1: faster than PyTorch). CUPTI (tracer) overhead: median traced step over median untraced step - 1 "
      "(adaptive variant). Loss check: loss after 3 steps at the tiny preset, "
      + ("a second CPU run in the dry run" if dry else "CUDA") + " against the CPU backend, relative tolerance 1e-3.")
roof = [r for r in rows if r["stage"] == "roofline"]
if roof:
    print()
    print(f"## Roofline ({roof[0]['device']}: `wheretime roofline FILE:RUN --device {roof[0]['device']}`)")
    print()
    print("Per step: the step's kernel time against the sum of its ops' bounds, then the largest ops.")
    print()
    print("| workload/variant | step time | bound | x bound | largest ops (time, bound by, x bound) |")
    print("|---|---|---|---|---|")
    for r in roof:
        st = r["step"]
        ops = "; ".join(f"{o['layer']} {o['op']} {o['time_ns'] / 1e6:.3f} ms {o['bound']} {o['x_bound']:.2f}x"
                        for o in r["ops"][:4] if o.get("x_bound") is not None)
        xb = f"{st['x_bound']:.2f}x" if st.get("x_bound") is not None else "n/a"
        print(f"| {r['workload']}/{r['variant']} | {st['time_ns'] / 1e6:.3f} ms | {st['bound_ns'] / 1e6:.3f} ms | {xb} | {ops} |")
PY
}

finish() {   # finish STATUS: the table, then exit
  write_table "$1" || echo "gpu-check: could not write $out/gpu-check.md" >&2
}
fail() {
  echo "gpu-check: FAILED at stage $stage: $*" >&2
  echo "FAILED at stage $stage: $*" >>"$notes"
  finish "FAILED at stage $stage"
  exit 1
}
# left SECONDS: sets T, the timeout of the next command: SECONDS, or less when the budget has
# less left; fails when it is spent.
left() {
  local rest=$(( budget - $(elapsed) ))
  [ "$rest" -gt 5 ] || fail "over the ${budget}-second budget"
  if [ "$rest" -lt "$1" ]; then T=$rest; else T=$1; fi
}
# cli STAGE TAGS TIMEOUT ARGS...: runs the CLI with --json, appends its line tagged with the stage.
cli() {
  local tags=$1 limit=$2 line rc
  shift 2
  left "$limit"
  line=$(timeout "$T" "$bin" "$@" --json 2>"$out/last-error.txt")
  rc=$?
  if [ "$rc" != 0 ]; then
    local why
    why=$(grep -v '^$' "$out/last-error.txt" | tail -1)
    [ "$rc" = 124 ] && why="timed out"
    fail "wheretime $* (exit $rc): ${why:-no message}"
  fi
  echo "$line" | sed "s/^{/{\"stage\":\"$stage\",$tags/" >>"$results"
}

# --- 1. setup ---------------------------------------------------------------------------
if [ -n "${WHERETIME:-}" ]; then
  bin=$WHERETIME
elif [ -x "$here/../bin/wheretime" ]; then
  bin=$(cd "$here/../bin" && pwd)/wheretime
else
  fail "no wheretime: run this from the GPU bundle (scripts/gpu-bundle.sh) or set WHERETIME"
fi
gputest=${TST_CAPTURE_GPU:-$(dirname "$bin")/tst_capture_gpu}
# The CUDA backend and CUPTI tracer: the plugin the CLI loads for a GPU capture (beside it in
# the bundle; $WHERETIME_PLUGIN_DIR for a build tree).
plugin=${WHERETIME_PLUGIN_DIR:-$(dirname "$bin")}/libwheretime-cuda.so
command -v python3 >/dev/null || fail "python3 is needed for the table"
if [ "$dry" = 0 ]; then
  # The bundle was built on Debian 12: it needs glibc 2.36 or newer.
  [ -f "$plugin" ] || fail "no CUDA plugin: $plugin is missing (the bundle ships it beside bin/wheretime)"
  old=$(ldd "$bin" "$plugin" 2>&1 | grep -o "version \`GLIBC_[0-9.]*' not found" | head -1)
  [ -z "$old" ] || fail "this machine's glibc is too old for the bundle ($old; $(ldd --version | head -1))"
  # The CUDA libraries of this machine: RUNPATH covers /usr/local/cuda; look elsewhere if not.
  if ldd "$plugin" | grep -q "not found"; then
    dirs=""
    for root in ${CUDA_HOME:-} ${CUDA_PATH:-} /usr/local/cuda /usr/local/cuda-13* /opt/cuda; do
      for sub in lib64 lib targets/x86_64-linux/lib extras/CUPTI/lib64; do
        [ -d "$root/$sub" ] && dirs="$dirs:$root/$sub"
      done
    done
    # CUDA wheels next to PyTorch (nvidia-cublas, nvidia-cuda-cupti, ...).
    pydirs=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0] if hasattr(nvidia, "__path__") else nvidia.__file__))' 2>/dev/null)
    [ -n "$pydirs" ] && dirs="$dirs:$(find "$pydirs/nvidia" -name 'lib*.so.13*' -printf '%h\n' 2>/dev/null | sort -u | tr '\n' ':')"
    export LD_LIBRARY_PATH="${dirs#:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    missing=$(ldd "$plugin" | grep "not found" | awk '{print $1}' | tr '\n' ' ')
    [ -z "$missing" ] || fail "CUDA libraries not found on this machine: $missing(set CUDA_HOME or LD_LIBRARY_PATH)"
    log "CUDA libraries from LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  fi
  nvidia-smi -L 2>/dev/null | head -4 || log "nvidia-smi not found"
  "$bin" --version | grep -q "^cuda plugin: /" || fail "$bin finds no CUDA plugin: $("$bin" --version | grep '^cuda plugin')"
  "$bin" workloads | grep -q "^cuda: available" || fail "no usable GPU: $("$bin" workloads | grep '^cuda:')"
fi
version=$("$bin" --version 2>&1) || fail "$bin does not start: $(echo "$version" | tail -1)"
version=$(echo "$version" | head -1)
log "$version"
echo "binary: $version" >>"$notes"
variants=$("$bin" workloads --json | python3 -c 'import json,sys; print(" ".join(v["name"] for v in json.load(sys.stdin)["variants"]))') ||
  fail "cannot list the softmax variants"
[ -n "$variants" ] || fail "no softmax variants listed"
workloads="gcn transformer"
# The tiny CUDA-vs-CPU loss stage also covers the BERT family (tiny steps cost milliseconds).
loss_workloads="$workloads bert groupbert"
if [ "$dry" = 1 ]; then backend=cpu; preset=tiny; else backend=cuda; preset=paper; fi

# --- 2. gpu tests -----------------------------------------------------------------------
stage=gpu-tests
if [ -x "$gputest" ]; then
  log "gpu tests: $gputest"
  left 150
  timeout "$T" "$gputest" >"$out/gpu-tests.log" 2>&1
  rc=$?
  if [ "$rc" = 77 ] && [ "$dry" = 1 ]; then
    echo "gpu tests: skipped ($(tail -1 "$out/gpu-tests.log"))" >>"$notes"
  elif [ "$rc" = 0 ]; then
    echo "gpu tests: passed ($(grep -c '^PASS' "$out/gpu-tests.log") checks)" >>"$notes"
  else
    grep '^FAIL' "$out/gpu-tests.log" | head -5 >&2
    fail "tst_capture_gpu exit $rc: $(grep -m1 '^FAIL' "$out/gpu-tests.log" || tail -1 "$out/gpu-tests.log")"
  fi
else
  [ "$dry" = 1 ] || fail "tst_capture_gpu is not beside $bin"
  echo "gpu tests: not built here" >>"$notes"
fi

# --- 3. numbers: CUDA against the CPU backend at tiny ----------------------------------
stage=numbers
log "numbers: loss after 3 steps, $([ "$dry" = 1 ] && echo "CPU against CPU (dry run)" || echo "CUDA against CPU"), tiny"
other=$([ "$dry" = 1 ] && echo cpu-again || echo cuda)
for w in $loss_workloads; do
  for v in $variants; do
    common=(capture --workload "$w" --variant "$v" --preset tiny --steps 3 --warmup 0 --no-trace)
    cli "\"against\":\"cpu\"," 60 "${common[@]}" --backend cpu
    cli "\"against\":\"$other\"," 60 "${common[@]}" --backend "$backend"
  done
done
python3 - "$results" <<'PY' || fail "$(tail -1 "$out/numbers.txt")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"stage":"numbers"' in l]
by = {}
for r in rows:
    by.setdefault((r["workload"], r["variant"]), {})[r["against"]] = r["loss"]
bad = []
for (w, v), l in sorted(by.items()):
    ref = l.get("cpu")
    other = l.get("cuda", l.get("cpu-again"))
    if ref is None or other is None:
        bad.append(f"{w}/{v}: loss is NaN or missing ({other} vs CPU {ref})")
    elif abs(other - ref) > 1e-3 * abs(ref):
        bad.append(f"{w}/{v}: loss after 3 steps {other:.6f} vs CPU {ref:.6f} (relative difference {abs(other - ref) / abs(ref):.2e} > 1e-3)")
with open(sys.argv[1].replace("results.jsonl", "numbers.txt"), "w") as f:
    for b in bad:
        print(b, file=f)
    print(f"{len(by) - len(bad)} of {len(by)} workload/variant losses within 1e-3", file=f)
sys.exit(1 if bad else 0)
PY
echo "numbers: $(tail -1 "$out/numbers.txt") ($other against cpu, tiny, 3 steps)" >>"$notes"

# --- 4. captures at the paper preset (tiny in the dry run) -----------------------------
stage=captures
db="$out/captures.wt"
rm -f "$db" "$db-wal" "$db-shm"
# The roofline's device: the table's H200 (${GPU_CHECK_DEVICE}: another table device); the dry
# run's is this CPU, calibrated into the captures' file.
if [ "$dry" = 1 ]; then
  roof_device=cpu
  left 60
  timeout "$T" "$bin" calibrate "$db" >/dev/null 2>"$out/last-error.txt" || fail "wheretime calibrate: $(tail -1 "$out/last-error.txt")"
else
  roof_device=${GPU_CHECK_DEVICE:-h200}
fi
for w in $workloads; do
  for v in $variants; do
    log "capture $w/$v ($preset, $steps steps)"
    cli "" 120 capture --workload "$w" --variant "$v" --preset "$preset" --backend "$backend" --steps "$steps" --warmup 1 \
      --name "$w-$v-$preset" -o "$db"
    tail -1 "$results" | grep -q '"status":"complete"' || fail "$w/$v: the capture did not complete"
    tail -1 "$results" | grep -q '"loss":null' && fail "$w/$v: the loss is NaN at the $preset preset"
    # The softmax layer's time by phase: forward + backward is what PyTorch's module times.
    run=$(tail -1 "$results" | python3 -c 'import json, sys; print(json.load(sys.stdin)["run"])')
    left 60
    timeout "$T" "$bin" stats "$db:$run" --group-by phase --within layer=softmax --json >"$out/phases.json" 2>"$out/last-error.txt" ||
      fail "wheretime stats $db:$run: $(tail -1 "$out/last-error.txt")"
    python3 - "$out/phases.json" "$w" "$v" "$steps" <<'PY' >>"$results" || fail "cannot read the softmax phases of $w/$v"
import json, sys
d = json.load(open(sys.argv[1]))
ph = {g["name"]: g["time_ns"] for g in d["groups"]}
steps = int(sys.argv[4])
print(json.dumps({"stage": "softmax-phases", "workload": sys.argv[2], "variant": sys.argv[3],
                  **{f"{k}_ns_per_step": ph.get(k, 0) // steps for k in ("forward", "backward", "update")}}))
PY
    # The roofline of the run (issue 28's table on this device): not a gate, a failure is a note.
    left 60
    if timeout "$T" "$bin" roofline "$db:$run" --device "$roof_device" --json >"$out/roofline-$w-$v.json" 2>"$out/last-error.txt"; then
      python3 - "$out/roofline-$w-$v.json" "$w" "$v" <<'PY' >>"$results" || echo "roofline $w/$v: unreadable output" >>"$notes"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
print(json.dumps({"stage": "roofline", "workload": sys.argv[2], "variant": sys.argv[3], "device": d["device"]["name"],
                  "step": rows[-1], "ops": rows[:-1][:8]}))
PY
    else
      echo "roofline $w/$v: $(tail -1 "$out/last-error.txt")" >>"$notes"
    fi
  done
done
echo "captures: $(grep -c '"stage":"captures"' "$results") runs in captures.wt ($preset preset, $steps traced steps after 1 warm-up)" >>"$notes"

# --- 5. CUPTI overhead: adaptive traced vs untraced, alternating ------------------------
stage=overhead
scratch="$out/overhead.wt"
for w in $workloads; do
  log "overhead $w (traced vs --no-trace)"
  for rep in 1 2; do
    cli "" 120 capture --workload "$w" --variant adaptive --preset "$preset" --backend "$backend" --steps "$steps" --warmup 1 --no-trace
    [ "$rep" = 2 ] && break
    cli "" 120 capture --workload "$w" --variant adaptive --preset "$preset" --backend "$backend" --steps "$steps" --warmup 1 \
      -o "$scratch"
  done
done
rm -f "$scratch" "$scratch-wal" "$scratch-shm" "$out/phases.json"
echo "overhead: adaptive variant, 2 traced runs (one from the captures) and 2 untraced runs per workload" >>"$notes"

# --- 6. PyTorch's AdaptiveLogSoftmaxWithLoss on the same shapes --------------------------
stage=pytorch
rm -f "$out/pytorch.json"
if [ "$dry" = 1 ] && ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  why=$(python3 -c 'import torch' 2>/dev/null && echo "torch has no CUDA device here" || echo "torch is not installed here")
  log "pytorch: skipped ($why)"
  echo "pytorch: skipped in the dry run ($why)" >>"$notes"
elif [ "$dry" = 1 ]; then
  echo "pytorch: skipped in the dry run (the tiny preset has no PyTorch counterpart)" >>"$notes"
else
  log "pytorch: AdaptiveLogSoftmaxWithLoss, paper shapes"
  left 150
  timeout "$T" python3 "$here/softmax-vs-pytorch.py" --json-out "$out/pytorch.json" >"$out/pytorch.txt" 2>&1 ||
    fail "softmax-vs-pytorch.py: $(tail -1 "$out/pytorch.txt")"
  echo "pytorch: $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(", ".join(f"{x["shape"]} {x["median_ms"]:.2f} ms" for x in r), "(torch", r[0]["torch"] + ")")' "$out/pytorch.json")" >>"$notes"
fi

# --- 7. scaling: the GCN's softmax share against the hidden size, every variant -----------
stage=scaling
if [ "$dry" = 1 ]; then svalues=8,16; spreset=tiny; else svalues=256,512,1024,2048; spreset=small; fi
sdb="$out/scaling-gcn.wt"
rm -f "$sdb" "$sdb-wal" "$sdb-shm"
log "scaling: gcn $spreset, hidden=$svalues x every variant"
cli "" 300 capture --workload gcn --preset "$spreset" --backend "$backend" --steps "$steps" --warmup 1 \
  --sweep "hidden=$svalues" --sweep "variant=$(echo $variants | tr ' ' ,)" -o "$sdb"
left 60
timeout "$T" "$bin" sweep "$sdb" --layer softmax --json >"$out/scaling-gcn.json" 2>"$out/last-error.txt" ||
  fail "wheretime sweep $sdb: $(tail -1 "$out/last-error.txt")"
summary=$(python3 - "$out/scaling-gcn.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
parts, series = [], {}
for r in t["rows"]:   # one row per point, in series order (the sweep table, docs/softmax-variants.md)
    if r["source"] == "measured":
        series.setdefault(r.get(t["group_key"]) or r["series"], []).append(r)
for name, points in series.items():
    parts.append(name + " " + "/".join("-" if p["share"] is None else f"{p['share'] * 100:.0f}%" for p in points))
print(f"softmax share at {t['x_key']}={','.join(t['x_values'])}: " + "; ".join(parts))
PY
) || fail "cannot read $out/scaling-gcn.json"
echo "scaling: gcn $spreset, $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["sweep"]["runs"]))' "$out/scaling-gcn.json") runs in scaling-gcn.wt; $summary" >>"$notes"

stage=table
echo "time: $(elapsed) s of the ${budget}-second budget" >>"$notes"
finish "passed"
log "passed in $(elapsed) s: $out/gpu-check.md, $db"
cat "$out/gpu-check.md"
