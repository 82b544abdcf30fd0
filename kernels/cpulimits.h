// This CPU's limits as the CPU backend meets them: the sgemm rate, the bfloat16 GEMM's rate,
// the copy bandwidth, the row kernels' exp throughput and the fixed cost of one small op. One
// measurement for `wheretime calibrate` (which stores it as the cost model's device) and
// bench_roofline (which prices each op by it), so the two read the same machine alike.
#pragma once

namespace wt::kernels {

struct CpuLimits {
    double sgemmFlopPerS = 0;     // the fp32 roof: the larger of the two below
    double sgemmLargeFlopPerS = 0;   // the backend's fp32 GEMM at 1024^3, best of 5 after a warm-up
    double sgemmTileFlopPerS = 0;    // its register tile in cache (128 x 64 x 128) on every pool thread, best of 30 ~1 ms runs
    double bf16FlopPerS = 0;      // the backend's bfloat16 GEMM, same shape
    double copyBytesPerS = 0;     // memcpy of 64 MiB on one thread, bytes read + written, best of 5
    double copyPoolBytesPerS = 0; // the same copy split over the backend's pool (shown, not a bound)
    double expPerS = 0;           // vexp (vecmath.h) over an L1-resident block on every pool thread, best of 30 ~1 ms runs
    double smallOpNs = 0;         // one 1x1x1 sgemm call, median of 201: the fixed cost of a launch
    int threads = 0;              // the backend pool's threads
};

// About a second on an idle 2-core machine.
CpuLimits measureCpuLimits();

}  // namespace wt::kernels
