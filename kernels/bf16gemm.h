// The CPU backend's GEMM in bfloat16: C = alpha op(A) op(B) + beta C (row-major, op(A) M x K,
// op(B) K x N, op = transpose when ta / tb), with A and B rounded to bfloat16 (to nearest,
// ties to even) and the products summed in fp32. For the softmax variant that trades the head's
// precision for speed (docs/softmax-variants.md); sgemm stays exact fp32 everywhere else.
//
// Blocked like blockedgemm.h, with the same rule for the order of the sums (fixed by the sizes).
// On a CPU with AVX512-BF16 (Zen 4, Cooper Lake and later) the inner product is vdpbf16ps: 32
// bfloat16 multiply-adds per instruction against sgemm's 16, so the bound is half sgemm's. Other
// CPUs run the same packed blocks in fp32 arithmetic (the same rounding of the inputs; products
// of two bfloat16 are exact in fp32), slower than sgemm. Results do not depend on the thread
// count: each element of C is summed by one thread in one order.
#pragma once

#include <cstdint>

namespace wt::kernels::cpu {

void gemmBf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
              const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

// True when gemmBf16 runs on vdpbf16ps. setBf16Native(false) forces the portable path (tests,
// benchmarks); it is ignored on a CPU without the instructions.
bool bf16Native();
void setBf16Native(bool on);

// x rounded to bfloat16 (the upper 16 bits of a float; to nearest, ties to even; NaN stays NaN).
uint16_t toBf16(float x);
float fromBf16(uint16_t b);

// The block sizes, for tests that cross every block boundary (kc even: k in pairs).
struct Bf16GemmSizes {
    int64_t mr, nr, kc, mc, nc;
};
Bf16GemmSizes bf16GemmSizes();

}  // namespace wt::kernels::cpu
