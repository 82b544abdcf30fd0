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

Runs on the GPU machine (needs torch with CUDA). Targets are Zipf(1.0)-distributed ids, like
wheretime's synthetic streams, so the per-cluster token counts match. Prints one JSON object
per shape: median milliseconds over --iters timed iterations.

usage: scripts/softmax-vs-pytorch.py [--iters 20] [--warmup 5] [--shape transformer|gcn|all]
                                     [--tf32] [--json-out FILE]
"""
import argparse
import json
import sys

SHAPES = {
    # name: (tokens N, hidden d, vocab V, cutoffs) -- the paper presets of kernels/model.cpp
    "transformer": (4 * 512, 1024, 793471, [60000, 100000, 640000]),
    "gcn": (16 * 256, 512, 33278, [10000, 20000]),
}


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--shape", choices=["transformer", "gcn", "all"], default="all")
    ap.add_argument("--tf32", action="store_true", help="allow TF32 matmuls (wheretime uses strict fp32)")
    ap.add_argument("--json-out", help="also write the results to this file")
    args = ap.parse_args()
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
