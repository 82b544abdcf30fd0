// This CPU's limits as the CPU backend meets them: the sgemm rate, the bfloat16 GEMM's rate,
// the copy bandwidth, the row kernels' exp throughput and the fixed cost of one small op. One
// measurement for `wheretime calibrate` (which stores it as the cost model's device) and
// bench_roofline (which prices each op by it), so the two read the same machine alike.
//
// The bandwidth, the exp rate and the GEMM tile are measured on every pool thread at once, in
// short passes spread over a window of `seconds` (4 s by default; interleaved, so that each sees the whole
// window), and each is the best pass whose threads all ran together and unpreempted: on a
// shared VM (this project's 2-core one) a pass where the OS left a thread waiting, or ran the
// caller alone, measures the other processes, not the machine; the best of a 4 s window of
// such passes is what repeated calibrations agree on (docs/performance.md, sixth round). Where
// the exp on every thread is no faster than on one (the threads were on one core all along:
// a VM's vCPUs on one host core look busy to the guest), the window grows, to 3x at most.
#pragma once

namespace wt::kernels {

struct CpuLimits {
    double sgemmFlopPerS = 0;     // the fp32 roof: the larger of the two below
    double sgemmLargeFlopPerS = 0;   // the backend's fp32 GEMM at 1024^3, best of 5 after a warm-up
    double sgemmTileFlopPerS = 0;    // its register tile in cache (128 x 64 x 128) on every pool thread, best pass of the window
    double bf16FlopPerS = 0;      // the backend's bfloat16 GEMM, same shape
    double copyBytesPerS = 0;     // the memory roof, bytes read + written: the larger of the two copies below
    double copyStoreBytesPerS = 0;   // y = x * s with ordinary stores (the row kernels' traffic), every pool thread on its own 8 MiB slice of 128 MiB buffers, best pass
    double copyMemcpyBytesPerS = 0;  // the same slices by memcpy (glibc: streaming stores at this size), best pass
    double copyOneThreadBytesPerS = 0;   // memcpy of 64 MiB on one thread, best of 5 (the roof before the sixth round; shown, not a bound)
    double expPerS = 0;           // vexp (vecmath.h) over an L1-resident block on every pool thread, best pass of the window
    double smallOpNs = 0;         // one 1x1x1 sgemm call, median of 201: the fixed cost of a launch
    // A plain scalar loop (the ops without a vectorized CPU path: "scalar=1" in their sizes): a
    // 4-tap one-dimensional convolution over [256, 64] rows, one element at a time with its index
    // arithmetic (i / C, i % C, each tap's bounds), 2 FLOPs per tap as the ops count theirs, on
    // every pool thread, best pass of the window.
    double scalarFlopPerS = 0;
    int threads = 0;              // the backend pool's threads
    int validPasses[5] = {};      // passes that counted (all threads together, unpreempted): store copy, memcpy, exp, tile, scalar
    int passes[5] = {};           // passes run of each
    double windowSeconds = 0;     // the window the passes took (extended while the threads shared a core)
};

// `seconds`: the window of the on-every-thread passes (the GEMMs at 1024^3 and the small op
// add about 0.2 s on an idle 2-core machine).
CpuLimits measureCpuLimits(double seconds = 4.0);

}  // namespace wt::kernels
