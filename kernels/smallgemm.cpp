// smallgemm.h: 8 x 32 register tiles (16 zmm accumulators), op(A)'s element broadcast straight
// from A, op(B) read 32 columns at a time (in place, or from a copy of the panel: transposed,
// or the zero-padded edge), the tile's edge columns stored under a mask.
#include "kernels/smallgemm.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define WT_SMALLGEMM_X86 1
#endif

namespace wt::kernels::cpu {

namespace {

constexpr int64_t kNR = 32;   // columns of a tile: two 16-float registers
constexpr int kMR = 8;        // rows of a full tile

bool cpuHasAvx512()
{
#if defined(WT_SMALLGEMM_X86)
    return __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

// WHERETIME_SMALL_GEMM=0 starts with it off (before/after runs of one binary).
bool onByDefault()
{
    const char* env = std::getenv("WHERETIME_SMALL_GEMM");
    return !(env && env[0] == '0');
}

std::atomic<bool> g_on{onByDefault()};

// Columns [j, j + 32) of op(B) (row k at k 32 of out), zero past N: the transposed panels, and
// the edge panel of either. Unmasked loads from a full panel: masked ones halved the rate here.
void packPanel(bool tb, const float* B, int64_t ldb, int64_t K, int64_t N, int64_t j, float* out)
{
    const int64_t nv = std::min(kNR, N - j);
    if (tb) {
        for (int64_t c = 0; c < nv; ++c) {
            const float* col = B + (j + c) * ldb;
            for (int64_t k = 0; k < K; ++k)
                out[k * kNR + c] = col[k];
        }
    } else {
        for (int64_t k = 0; k < K; ++k)
            for (int64_t c = 0; c < nv; ++c)
                out[k * kNR + c] = B[k * ldb + j + c];
    }
    for (int64_t k = 0; k < K; ++k)
        for (int64_t c = nv; c < kNR; ++c)
            out[k * kNR + c] = 0.f;
}

#if defined(WT_SMALLGEMM_X86)
// MR rows of C (row r of op(A) at a + r sai, its k-th element at + k sak) times one panel.
template <int MR>
__attribute__((target("avx512f"))) inline void tile(int64_t K, const float* a, int64_t sai, int64_t sak,
                                                    const float* b, int64_t sbk, __mmask16 m0, __mmask16 m1, float alpha,
                                                    float beta, float* c, int64_t ldc)
{
    __m512 acc[MR][2];
    for (int r = 0; r < MR; ++r)
        acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int64_t k = 0; k < K; ++k) {
        const __m512 b0 = _mm512_loadu_ps(b + k * sbk), b1 = _mm512_loadu_ps(b + k * sbk + 16);
        for (int r = 0; r < MR; ++r) {
            const __m512 av = _mm512_set1_ps(a[r * sai + k * sak]);
            acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
        }
    }
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (int r = 0; r < MR; ++r) {
        float* row = c + r * ldc;
        __m512 o0 = _mm512_mul_ps(va, acc[r][0]), o1 = _mm512_mul_ps(va, acc[r][1]);
        if (beta != 0.f) {
            o0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, row), o0);
            o1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, row + 16), o1);
        }
        _mm512_mask_storeu_ps(row, m0, o0);
        _mm512_mask_storeu_ps(row + 16, m1, o1);
    }
}

__attribute__((target("avx512f"))) void run(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha,
                                            const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                                            float* C, int64_t ldc, int64_t p0, int64_t p1, float* panel)
{
    const int64_t sai = ta ? 1 : lda, sak = ta ? lda : 1;
    for (int64_t p = p0; p < p1; ++p) {
        const int64_t j = p * kNR, nv = std::min(kNR, N - j);
        const __mmask16 m0 = __mmask16(nv >= 16 ? 0xffffu : (1u << nv) - 1);
        const __mmask16 m1 = __mmask16(nv >= 32 ? 0xffffu : (nv > 16 ? (1u << (nv - 16)) - 1 : 0u));
        const float* b = B + j;   // op(B) = B: rows of ldb floats, read in place
        int64_t sbk = ldb;
        if (tb || nv < kNR) {     // B^T, or the edge panel (loads past N would leave the rows)
            packPanel(tb, B, ldb, K, N, j, panel);
            b = panel, sbk = kNR;
        }
        int64_t i = 0;
        for (; i + kMR <= M; i += kMR)
            tile<kMR>(K, A + i * sai, sai, sak, b, sbk, m0, m1, alpha, beta, C + i * ldc + j, ldc);
        const float* a = A + i * sai;
        float* c = C + i * ldc + j;
        switch (M - i) {
        case 7: tile<7>(K, a, sai, sak, b, sbk, m0, m1, alpha, beta, c, ldc); break;
        case 6: tile<6>(K, a, sai, sak, b, sbk, m0, m1, alpha, beta, c, ldc); break;
        case 5: tile<5>(K, a, sai, sak, b, sbk, m0, m1, alpha, beta, c, ldc); break;
        case 4: tile<4>(K, a, sai, sak, b, sbk, m0, m1, alpha, beta, c, ldc); break;
        case 3: tile<3>(K, a, sai, sak, b, sbk, m0, m1, alpha, beta, c, ldc); break;
        case 2: tile<2>(K, a, sai, sak, b, sbk, m0, m1, alpha, beta, c, ldc); break;
        case 1: tile<1>(K, a, sai, sak, b, sbk, m0, m1, alpha, beta, c, ldc); break;
        default: break;
        }
    }
}
#endif

}  // namespace

bool smallGemmAvailable() { return g_on.load(std::memory_order_relaxed) && cpuHasAvx512(); }
void setSmallGemm(bool on) { g_on.store(on, std::memory_order_relaxed); }

void smallGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
               const float* B, int64_t ldb, float beta, float* C, int64_t ldc, int64_t p0, int64_t p1)
{
    if (p1 < 0)
        p1 = smallGemmPanels(N);
    if (M <= 0 || N <= 0 || p0 >= p1)
        return;
    thread_local std::vector<float> panel;
    panel.resize(size_t(std::max<int64_t>(1, K * kNR)));
#if defined(WT_SMALLGEMM_X86)
    run(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, p0, p1, panel.data());
#else
    (void)ta, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)beta, (void)C, (void)ldc;
#endif
}

}  // namespace wt::kernels::cpu
