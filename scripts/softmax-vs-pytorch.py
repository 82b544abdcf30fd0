#!/usr/bin/env python3
"""Time PyTorch's AdaptiveLogSoftmaxWithLoss on the shapes of the bundled workloads, as the
reference for wheretime's softmax variants (docs/softmax-variants.md).

Like for like with wheretime: `median_ms` is the layer's forward + backward (loss and the
gradients of the input and the weights), which is what wheretime reports as the softmax
layer's time (`wheretime workloads --run`: "softmax", forward + backward, the update phase
apart; in a capture: the softmax layer's scopes in the forward and backward phases).
`median_ms_with_update` adds what wheretime's update phase does for this layer: global-norm
clipping (norm 1) and SGD with Nesterov momentum 0.9 on the layer's parameters, and the loss
read-back (loss.item()).

--device cuda (default) runs on the GPU machine (needs torch with CUDA). Targets are
Zipf(1.0)-distributed ids, like wheretime's synthetic streams, so the per-cluster token counts
match. Prints one JSON object per shape: median milliseconds over --iters timed iterations.

--device cpu (Debian's python3-torch: scripts/install-deps.sh --pytorch) times PyTorch's
AdaptiveLogSoftmaxWithLoss and its full softmax (a bias-free Linear + cross-entropy) on the
CPU with torch.set_num_threads(cores), and, alternating with them round by round in the same
invocation, wheretime's softmax layer of every variant (`wheretime workloads gcn --run`, the
softmax layer's forward + backward), then prints a Markdown table of every variant's time
and its ratio to PyTorch's (docs/softmax-variants.md). --variants picks wheretime's variants;
--openblas-too adds, alternating with the rest, each variant run with WHERETIME_SMALL_GEMM=0
(the backend's GEMMs on OpenBLAS instead of its own kernels), an A/B within one invocation. CPU shapes: gcn-small (the gcn small
preset) and gcn (the paper preset); the Transformer's 793k vocabulary does not fit a full
softmax in this machine's memory.

usage: scripts/softmax-vs-pytorch.py [--iters 20] [--warmup 5] [--shape transformer|gcn|all]
                                     [--tf32] [--json-out FILE]
       scripts/softmax-vs-pytorch.py --device cpu [--shape gcn-small|gcn|all] [--rounds 3]
                                     [--iters 5] [--wheretime PATH] [--json-out FILE]
                                     [--variants full,adaptive,...] [--openblas-too]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

SHAPES = {
    # name: (tokens N, hidden d, vocab V, cutoffs) -- the paper presets of kernels/model.cpp
    "transformer": (4 * 512, 1024, 793471, [60000, 100000, 640000]),
    "gcn": (16 * 256, 512, 33278, [10000, 20000]),
}
# --device cpu: name -> (tokens, hidden, vocab, cutoffs, wheretime preset)
CPU_SHAPES = {
    "gcn-small": (8 * 128, 256, 33278, [10000, 20000], "small"),
    "gcn": (16 * 256, 512, 33278, [10000, 20000], "paper"),
}
VARIANTS = ["full", "adaptive", "bucketed", "fused", "fused_bf16"]


def zipf_targets(torch, n, vocab, seed):
    ranks = torch.arange(1, vocab + 1, dtype=torch.float64)
    probs = 1.0 / ranks
    probs /= probs.sum()
    g = torch.Generator().manual_seed(seed)
    return torch.multinomial(probs, n, replacement=True, generator=g)


def time_shape(torch, name, n, d, vocab, cutoffs, iters, warmup):
    dev = torch.device("cuda")
    torch.manual_seed(1)
    module = torch.nn.AdaptiveLogSoftmaxWithLoss(d, vocab, cutoffs, div_value=4.0, head_bias=False).to(dev)
    hidden = torch.randn(n, d, device=dev, requires_grad=True)
    target = zipf_targets(torch, n, vocab, 1).to(dev)
    optimizer = torch.optim.SGD(module.parameters(), lr=0.01, momentum=0.9, nesterov=True)
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times, times_update = [], []
    for i in range(warmup + iters):
        for with_update in (False, True):
            module.zero_grad(set_to_none=True)
            hidden.grad = None
            torch.cuda.synchronize()
            start.record()
            out = module(hidden, target)
            out.loss.backward()
            if with_update:
                torch.nn.utils.clip_grad_norm_(module.parameters(), 1.0)
                optimizer.step()
                out.loss.item()
            stop.record()
            torch.cuda.synchronize()
            if i >= warmup:
                (times_update if with_update else times).append(start.elapsed_time(stop))
    times.sort()
    times_update.sort()
    counts = []
    bounds = [0] + cutoffs + [vocab]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        counts.append(int(((target >= lo) & (target < hi)).sum().item()))
    return {
        "shape": name, "tokens": n, "hidden": d, "vocab": vocab, "cutoffs": cutoffs,
        "tokens_per_cluster": counts, "median_ms": times[len(times) // 2], "min_ms": times[0],
        "median_ms_with_update": times_update[len(times_update) // 2],
        "iters": iters, "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "tf32": torch.backends.cuda.matmul.allow_tf32, "loss": float(out.loss.item()),
    }


def time_cpu_torch(torch, kind, n, d, vocab, cutoffs, iters, warmup):
    """Median ms of forward + backward of PyTorch's adaptive or full softmax on the CPU."""
    torch.manual_seed(1)
    if kind == "adaptive":
        module = torch.nn.AdaptiveLogSoftmaxWithLoss(d, vocab, cutoffs, div_value=4.0, head_bias=False)
    else:
        module = torch.nn.Linear(d, vocab, bias=False)
    hidden = torch.randn(n, d, requires_grad=True)
    target = zipf_targets(torch, n, vocab, 1)
    times = []
    for i in range(warmup + iters):
        module.zero_grad(set_to_none=True)
        hidden.grad = None
        t0 = time.perf_counter()
        if kind == "adaptive":
            loss = module(hidden, target).loss
        else:
            loss = torch.nn.functional.cross_entropy(module(hidden), target)
        loss.backward()
        t1 = time.perf_counter()
        if i >= warmup:
            times.append((t1 - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def time_cpu_wheretime(binary, preset, variant, steps, openblas=False):
    """The softmax layer's forward + backward ms per step from `wheretime workloads --run`;
    openblas: with WHERETIME_SMALL_GEMM=0 (every GEMM on OpenBLAS)."""
    env = dict(os.environ)
    if openblas:
        env["WHERETIME_SMALL_GEMM"] = "0"
    out = subprocess.run([binary, "workloads", "gcn", "--preset", preset, "--variant", variant, "--run", str(steps)],
                         check=True, capture_output=True, text=True, env=env).stdout
    m = re.search(r"^\s+softmax\s+([0-9.]+) s/step", out, re.M)
    if not m:
        raise RuntimeError("no softmax line in the output of wheretime workloads --run")
    return float(m.group(1)) * 1e3


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])


def run_cpu(args):
    try:
        import torch
    except ImportError:
        print("softmax-vs-pytorch: error: PyTorch is not installed (scripts/install-deps.sh --pytorch)", file=sys.stderr)
        return 1
    if not os.access(args.wheretime, os.X_OK):
        print(f"softmax-vs-pytorch: error: {args.wheretime} is not an executable wheretime (--wheretime PATH)",
              file=sys.stderr)
        return 1
    cores = os.cpu_count() or 1
    torch.set_num_threads(cores)
    names = list(CPU_SHAPES) if args.shape == "all" else [args.shape]
    if any(n not in CPU_SHAPES for n in names):
        print(f"softmax-vs-pytorch: error: --device cpu knows the shapes {', '.join(CPU_SHAPES)}", file=sys.stderr)
        return 1
    variants = args.variants.split(",") if args.variants else VARIANTS
    if any(v not in VARIANTS for v in variants):
        print(f"softmax-vs-pytorch: error: --variants takes some of {','.join(VARIANTS)}", file=sys.stderr)
        return 1
    keys = variants + ([f"{v}@openblas" for v in variants] if args.openblas_too else [])
    results = []
    for name in names:
        n, d, vocab, cutoffs, preset = CPU_SHAPES[name]
        ms = {k: [] for k in ["torch_adaptive", "torch_full"] + keys}
        for r in range(args.rounds):
            # One round: each measurement once, the order rotated so load drift hits all alike.
            jobs = [("torch_adaptive", lambda: time_cpu_torch(torch, "adaptive", n, d, vocab, cutoffs, args.iters, 1)),
                    ("torch_full", lambda: time_cpu_torch(torch, "full", n, d, vocab, cutoffs, args.iters, 1))]
            jobs += [(k, lambda k=k: time_cpu_wheretime(args.wheretime, preset, k.split("@")[0], args.steps,
                                                        k.endswith("@openblas"))) for k in keys]
            k = r % len(jobs)
            for key, job in jobs[k:] + jobs[:k]:
                ms[key].append(job())
        row = {"shape": name, "tokens": n, "hidden": d, "vocab": vocab, "cutoffs": cutoffs, "rounds": args.rounds,
               "threads": cores, "torch": torch.__version__, "load_average": os.getloadavg()[0]}
        row.update({f"{k}_median_ms": median(v) for k, v in ms.items()})
        row.update({f"{k}_min_ms": min(v) for k, v in ms.items()})
        results.append(row)
        print(json.dumps(row))
    print()
    # Ratios: PyTorch's time over this row's time (above 1: faster than PyTorch).
    print("| shape | implementation | median ms | min ms | PyTorch adaptive / this | PyTorch full / this |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in results:
        ta, tf = row["torch_adaptive_median_ms"], row["torch_full_median_ms"]
        for key, label in [("torch_adaptive", "PyTorch AdaptiveLogSoftmaxWithLoss"),
                           ("torch_full", "PyTorch Linear + cross_entropy")] + \
                [(k, f"wheretime {k.split('@')[0]}" + (" (OpenBLAS GEMMs)" if k.endswith("@openblas") else ""))
                 for k in keys]:
            t = row[f"{key}_median_ms"]
            print(f"| {row['shape']} | {label} | {t:.1f} | {row[f'{key}_min_ms']:.1f} | {ta / t:.2f}x | {tf / t:.2f}x |")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(results, f, indent=1)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--shape", choices=["transformer", "gcn", "gcn-small", "all"], default=None)
    ap.add_argument("--rounds", type=int, default=3, help="--device cpu: alternating rounds")
    ap.add_argument("--steps", type=int, default=3, help="--device cpu: wheretime steps per run (the first untimed)")
    ap.add_argument("--wheretime", default="build/release/app/cli/wheretime", help="--device cpu: the wheretime binary")
    ap.add_argument("--variants", help="--device cpu: wheretime's variants, comma-separated (default: all)")
    ap.add_argument("--openblas-too", action="store_true",
                    help="--device cpu: also each variant with WHERETIME_SMALL_GEMM=0, alternating")
    ap.add_argument("--tf32", action="store_true", help="allow TF32 matmuls (wheretime uses strict fp32)")
    ap.add_argument("--json-out", help="also write the results to this file")
    args = ap.parse_args()
    if args.device == "cpu":
        if args.shape is None:
            args.shape = "gcn-small"
        return run_cpu(args)
    if args.shape is None:
        args.shape = "all"
    if args.shape == "gcn-small":
        print("softmax-vs-pytorch: error: gcn-small is a --device cpu shape", file=sys.stderr)
        return 1
    try:
        import torch
    except ImportError:
        print("softmax-vs-pytorch: error: PyTorch is not installed", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("softmax-vs-pytorch: error: no CUDA device visible to PyTorch", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    names = list(SHAPES) if args.shape == "all" else [args.shape]
    results = [time_shape(torch, name, *SHAPES[name], args.iters, args.warmup) for name in names]
    for r in results:
        print(json.dumps(r))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
