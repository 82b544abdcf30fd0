// Packing for the backend's fp32 GEMMs (smallgemm.cpp, blockedgemm.cpp): a 32-column panel of
// op(B) over a range of k, row k at k 32, zeros past the matrix's last column. A copy, so the
// sums' order is untouched. The transposed case (op(B) = B^T) goes by 8 x 8 AVX2 transposes:
// a scalar transposition cost a quarter of the attention items' time (a 64 x 32 panel per
// 128 x 32 x 64 of work).
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define WT_GEMMPACK_X86 1
#endif

namespace wt::kernels::cpu::gemmpack {

constexpr int64_t kPanel = 32;   // columns of a panel: the register tile's two 16-float registers

#if defined(WT_GEMMPACK_X86)
// The 8 x 8 block at src (rows ld apart) transposed into dst (rows ldd apart).
__attribute__((target("avx2"))) inline void transpose8(const float* src, int64_t ld, float* dst, int64_t ldd)
{
    __m256 r[8], t[8];
    for (int i = 0; i < 8; ++i)
        r[i] = _mm256_loadu_ps(src + i * ld);
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);       // a0 b0 a1 b1 | a4 b4 a5 b5
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);   // a2 b2 a3 b3 | a6 b6 a7 b7
    }
    for (int i = 0; i < 8; i += 4) {
        r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);       // a0 b0 c0 d0 | a4 ..
        r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);   // a1 b1 c1 d1 | a5 ..
        r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
    }
    for (int i = 0; i < 4; ++i) {
        _mm256_storeu_ps(dst + i * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
        _mm256_storeu_ps(dst + (i + 4) * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
    }
}
#endif

// Columns [j, j + 32) of op(B) (cols = min(32, N - j) of them real) over k [k0, k0 + kv):
// row k at out + k 32.
#if defined(WT_GEMMPACK_X86)
__attribute__((target("avx2")))
#endif
inline void packPanel(bool tb, const float* B, int64_t ldb, int64_t j, int64_t cols, int64_t k0, int64_t kv,
                      float* out)
{
    int64_t kd = 0;   // k done by the vector paths
#if defined(WT_GEMMPACK_X86)
    if (cols == kPanel) {
        if (tb)   // op(B)'s columns are B's rows: 8 x 8 blocks of 8 rows of B
            for (; kd + 8 <= kv; kd += 8)
                for (int64_t c = 0; c < kPanel; c += 8)
                    transpose8(B + (j + c) * ldb + k0 + kd, ldb, out + kd * kPanel + c, kPanel);
        else
            for (; kd < kv; ++kd) {
                const float* src = B + (k0 + kd) * ldb + j;
                for (int64_t c = 0; c < kPanel; c += 8)
                    _mm256_storeu_ps(out + kd * kPanel + c, _mm256_loadu_ps(src + c));
            }
    }
#endif
    for (int64_t k = kd; k < kv; ++k)
        for (int64_t c = 0; c < kPanel; ++c)
            out[k * kPanel + c] = c < cols ? (tb ? B[(j + c) * ldb + k0 + k] : B[(k0 + k) * ldb + j + c]) : 0.f;
}

}  // namespace wt::kernels::cpu::gemmpack
