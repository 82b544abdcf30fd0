// The CPU backend's fp32 GEMM for the large products (the softmax heads: gcn's 4,096 x 10,002
// x 512 and its gradients, 1024^3): C = alpha op(A) op(B) + beta C, row-major, op(A) M x K,
// op(B) K x N; beta 0 does not read C. Blocked like bf16gemm.cpp (Goto's structure): a block of
// op(B) (kKC x kNC) packed once into 32-column panels on the pool, each task packs a block of
// op(A) (up to kMC x kKC) into 8-row panels and runs smallgemm's AVX-512 8 x 32 register tile
// over it. OpenBLAS 0.3.21 drives this Zen 5 with its 8-wide Haswell kernels; the tiles here
// are 16-wide.
//
// The order of the sums is fixed by the sizes alone: every element of C is summed over k in
// order, one fused multiply-add per k, in blocks of kKC; with alpha 1 a block continues the
// previous block's sum (read back from C), so a product with alpha 1 and beta 0 has the bits of
// one running fp32 sum over k, as smallGemm's; otherwise C = alpha s_0 + beta C, then C += alpha
// s_b for each later block b. A tile of C is written by one thread, so the bits do not depend
// on the thread count or which thread took which block.
#pragma once

#include <cstdint>

namespace wt::kernels::cpu {

// True when the CPU has AVX-512F and our own kernels are on (WHERETIME_SMALL_GEMM=0, or
// setSmallGemm(false), routes every product back to OpenBLAS): smallGemmAvailable().
bool blockedGemmAvailable();

// Requires blockedGemmAvailable(). Runs on the backend's pool (cpu::parallelFor); called from
// inside a pool task it runs on the calling thread.
void blockedGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                 const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

// The block sizes, for tests that cross every block boundary.
struct BlockedGemmSizes {
    int64_t mr, nr, kc, mc, nc;
};
BlockedGemmSizes blockedGemmSizes();

}  // namespace wt::kernels::cpu
