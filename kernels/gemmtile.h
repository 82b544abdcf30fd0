// The C side of the 8 x 32 register tile that the blocked fp32 GEMM (blockedgemm.cpp, FMAs) and
// the bfloat16 GEMM (bf16gemm.cpp, vdpbf16ps) share: how a k block's sums start (from C, or
// zero, with the next tile's C prefetched meanwhile) and how they are stored. Only the loop
// over k differs between the two. Always inlined into the tile, so the sums stay in registers.
#pragma once

#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define WT_GEMMTILE_X86 1
#endif

namespace wt::kernels::cpu::gemmtile {

constexpr int64_t kMR = 8;    // rows of a tile
constexpr int64_t kNR = 32;   // columns of a tile: two 16-float registers

// How a tile's k block meets C: First writes alpha s (FirstBeta + beta C), Continue adds the
// block's sums to what C holds (a later k block of the same tile), AddScaled adds alpha s.
enum class Store { First, FirstBeta, Continue, AddScaled };

#if defined(WT_GEMMTILE_X86)
// Starts the sums: from C's first mt rows (Continue) or zero; the next tile's C (cnext, 8 rows,
// may be null) is fetched for writing meanwhile: a sum that starts from C waits for C's lines
// otherwise, and a First tile's stores wait for theirs (C comes from memory in a step: bert's
// 1,024 x 1,024 x 256, one k block, ran at 150 GFLOP/s a core there against 175 for its four-block
// 1,024 x 256 x 1,024).
__attribute__((target("avx512f"), always_inline)) inline void begin(__m512 (&acc)[kMR][2], const float* c, int64_t ldc,
                                                                    int64_t mt, __mmask16 m0, __mmask16 m1, Store how,
                                                                    const float* cnext)
{
    if (cnext)
        for (int r = 0; r < kMR; ++r) {
            _mm_prefetch(reinterpret_cast<const char*>(cnext + r * ldc), _MM_HINT_ET0);
            _mm_prefetch(reinterpret_cast<const char*>(cnext + r * ldc + kNR - 1), _MM_HINT_ET0);
        }
    if (how == Store::Continue) {
#pragma GCC unroll 8
        for (int r = 0; r < kMR; ++r) {
            acc[r][0] = r < mt ? _mm512_maskz_loadu_ps(m0, c + r * ldc) : _mm512_setzero_ps();
            acc[r][1] = r < mt ? _mm512_maskz_loadu_ps(m1, c + r * ldc + 16) : _mm512_setzero_ps();
        }
    } else {
#pragma GCC unroll 8
        for (int r = 0; r < kMR; ++r)
            acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    }
}

// Stores the sums into C's first mt rows (columns under the masks m0, m1) as `how` says.
__attribute__((target("avx512f"), always_inline)) inline void store(const __m512 (&acc)[kMR][2], float* c, int64_t ldc,
                                                                    int64_t mt, __mmask16 m0, __mmask16 m1, float alpha,
                                                                    float beta, Store how)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 8
    for (int r = 0; r < kMR; ++r) {
        if (r >= mt)
            break;
        float* row = c + r * ldc;
        __m512 o0 = acc[r][0], o1 = acc[r][1];
        if (how == Store::First || how == Store::FirstBeta) {
            o0 = _mm512_mul_ps(va, o0), o1 = _mm512_mul_ps(va, o1);
            if (how == Store::FirstBeta) {
                o0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, row), o0);
                o1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, row + 16), o1);
            }
        } else if (how == Store::AddScaled) {
            o0 = _mm512_fmadd_ps(va, o0, _mm512_maskz_loadu_ps(m0, row));
            o1 = _mm512_fmadd_ps(va, o1, _mm512_maskz_loadu_ps(m1, row + 16));
        }
        _mm512_mask_storeu_ps(row, m0, o0);
        _mm512_mask_storeu_ps(row + 16, m1, o1);
    }
}
#endif

}  // namespace wt::kernels::cpu::gemmtile
