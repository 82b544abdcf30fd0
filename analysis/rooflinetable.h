// The roofline of a run's ops: per layer family and op, what a step spent (measured, from the
// op features a capture stores: analysis/opfeatures.h), the achieved FLOP/s and B/s, and the
// device's bound for the same work (analysis/costmodel.h's rooflineTerms: FLOPs at the peak,
// bytes at the bandwidth, exps at the exp rate, plus the fixed cost of each launch), with how
// far the op is from it ("x bound": measured / bound, 1.0 = at the device's limit).
// `wheretime roofline` prints it for a CPU run against this machine's calibration or for a GPU
// capture against the device table; bench_roofline renders the same table (docs/performance.md).
#pragma once

#include "analysis/costmodel.h"
#include "analysis/opfeatures.h"
#include "analysis/table.h"

#include <string>
#include <vector>

namespace wt {

// One op of a layer family, per step.
struct RooflineOp {
    std::string layer;             // the layer family: "conv*" for conv0 .. conv9
    std::string op, kind;          // op name ("sgemm_nt", "glu_forward"), launch kind
    double launches = 0;           // per step
    double flops = 0, bytes = 0, exps = 0;   // per step; bytes as the roofline counts them (a copy's bytesRead)
    double measuredNs = 0;         // per step, the launches with a measured time
    RooflineTerms terms;           // per step: each term summed over the launches
    double boundNs = 0;            // per step: the sum of each launch's bound
};

// "conv3" -> "conv*", "decoder.2" -> "decoder.*": one row for the blocks of a kind.
std::string layerFamily(const std::string& layer);

// A run's launches summed per (layer family, op) and divided by its steps (1 without steps),
// each priced on `device`; in the order of measured time, largest first.
std::vector<RooflineOp> rooflineOps(const RunSamples& run, const DeviceSpec& device);

struct RooflineOptions {
    double minNs = 0;              // ops that take less per step fold into one row
};

// Columns: layer, op, kind, launches, time_ns, flop_per_s, bytes_per_s, bound (flop, mem, exp,
// launch), bound_ns, x_bound; CSV/JSON only: flops, bytes, exps, flops_ns, memory_ns, exp_ns,
// launch_ns. Rows: the ops as given, the folded ones as "(N ops under T)", then "step": every op's
// time and bound summed. A note says how the bound is made.
Table rooflineTable(const std::vector<RooflineOp>& ops, const DeviceSpec& device, const RooflineOptions& options = {});

// The device's rates the bound uses, one row: device, title, fp32_flop_per_s, bf16_flop_per_s,
// memory_bytes_per_s, exp_per_s, launch_ns, scalar_flop_per_s (none where the device has no such rate).
Table rooflineDeviceTable(const DeviceSpec& device);

}  // namespace wt
