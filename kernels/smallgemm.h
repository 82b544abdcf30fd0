// The CPU backend's fp32 GEMM for one small product on the calling thread: C = alpha op(A)
// op(B) + beta C (row-major, op(A) M x K, op(B) K x N; beta 0 does not read C). For the
// batched attention products (128 x 128 x 64 per head at the small presets), which the backend
// splits over its pool one item per task: OpenBLAS 0.3 drives this CPU (Zen 5) with its Haswell
// kernels, 8-wide FMA, where the AVX-512 register tiles here are 16-wide. op(A) is read in place;
// op(B) is read in place when it is B itself (copied where its rows would meet in too few L1
// sets), copied panel by panel (32 columns, by 8 x 8 transposes) when it is B^T.
// Every element of C is one fp32 sum over k in order
// (fused multiply-adds), then alpha acc + beta C: the same bits for any thread count.
#pragma once

#include <cstdint>

namespace wt::kernels::cpu {

// True when the CPU has AVX-512F (smallGemm's only path) and it is not switched off.
bool smallGemmAvailable();
// For benchmarks and tests: false routes the backend's products back to OpenBLAS (the
// environment's WHERETIME_SMALL_GEMM=0 sets it false at start).
void setSmallGemm(bool on);
// The sizes smallGemm takes: op(A), re-read for every panel, within 4 MiB (in L3), and a panel
// of op(B) (32 x K floats) within 1 MiB (in L2). Measured faster than OpenBLAS on one thread up
// to bert's 152 x 256 x 4002 (1.5x) and its tails' 14 x 64 x 8000 (2.4x).
inline bool smallGemmFits(int64_t M, int64_t K) { return K <= 8192 && M * K <= 1024 * 1024; }
// Panels of 32 columns: the unit smallGemm's range [p0, p1) counts in.
inline int64_t smallGemmPanels(int64_t N) { return (N + 31) / 32; }

// Requires smallGemmAvailable(); correct for any sizes, fast where smallGemmFits(M, K) or N is
// 16 or less (one panel: op(A) read once, on a 16-column tile). Writes columns [32 p0, 32 p1) of rows
// [r0, r1) of C (p1, r1 < 0: to the end), so a caller can split one product over threads by
// panels or by rows; the bits of an element do not depend on the split.
void smallGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
               const float* B, int64_t ldb, float beta, float* C, int64_t ldc, int64_t p0 = 0, int64_t p1 = -1,
               int64_t r0 = 0, int64_t r1 = -1);

}  // namespace wt::kernels::cpu
