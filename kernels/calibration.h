// This machine's limits measured through a backend, the one definition of each that
// `wheretime calibrate` stores as a device cost model (analysis/costmodel.h) and that
// bench_roofline divides by: the sgemm rate, the bfloat16 GEMM's, the copy bandwidth and the
// fixed cost of one launch (the roofline's launch overhead).
#pragma once

#include "kernels/backend.h"

namespace wt::kernels {

// FLOP/s of C[1024,1024] = A B, best of 5 after one warm-up (bf16: Backend::gemmBf16).
double measureGemmFlops(Backend& backend, bool bf16 = false);
// B/s of memcpy of 64 MiB, bytes read + written, best of 5 after one warm-up (one thread).
double measureCopyBytesPerS();
// ns of one small op: the median of 201 calls of a 1x1x1 sgemm, the fixed cost of a launch
// that does almost no work.
double measureSmallOpNs(Backend& backend);

}  // namespace wt::kernels
