// smallgemm.h: 8 x 32 register tiles (16 zmm accumulators; 8 x 16 for panels of 16 columns or
// fewer), op(A)'s element broadcast from A in place, op(B) read 32 columns at a time (in place,
// or from a copy of the panel: transposed, the zero-padded edge, or rows that meet in too few L1
// sets), the tile's edge columns stored under a mask.
#include "kernels/smallgemm.h"

#include "kernels/gemmpack.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <numeric>
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

// Panels of op(B) per group, the group's packed copies made together: up to 256 KiB (in L2).
constexpr int64_t kGroupFloats = 64 * 1024;
constexpr int64_t kMaxGroup = 128;   // panels of a group at most (4,096 columns; k 16 or less)

#if defined(WT_SMALLGEMM_X86)
// The tile after this one, fetched while this one sums: a product's operands and C come from the
// ops before it, from L3, memory or the other core, not from this core's L1 (the attention items
// right after split_heads ran at 118 against 205 GFLOP/s hot on one thread, C cold and A cold
// about equally: docs/performance.md, "The fp32 GEMMs in the workloads"). One line of its op(A)
// per k step (pa: its 8 rows, `lines` lines in all, line L at pa + (L & 7) s1 + (L >> 3) s2), and
// its C rows for writing at the start (pc, rows of them; null: none). Only prefetches: the sums
// do not change.
struct Next {
    const float* pa = nullptr;
    int64_t s1 = 0, s2 = 0, lines = 0;
    float* pc = nullptr;
    int64_t rows = 0, cols = 0;

    __attribute__((always_inline)) inline void prefetchA(int64_t k) const
    {
        if (k < lines)
            _mm_prefetch(reinterpret_cast<const char*>(pa + (k & 7) * s1 + (k >> 3) * s2), _MM_HINT_T0);
    }
    __attribute__((always_inline)) inline void prefetchC(int64_t ldc) const
    {
        for (int64_t r = 0; r < rows; ++r) {   // for writing: no shared copy to upgrade at the store
            _mm_prefetch(reinterpret_cast<const char*>(pc + r * ldc), _MM_HINT_ET0);
            _mm_prefetch(reinterpret_cast<const char*>(pc + r * ldc + cols - 1), _MM_HINT_ET0);
        }
    }
};

// MR rows of C (row r of op(A) at a + r sai, its k-th element at + k sak) times one panel. Not
// inlined: inside run()'s loops GCC spilled one of the 16 accumulators to the stack, a store
// and a load in every k step's chain, at half the rate.
template <int MR>
__attribute__((target("avx512f"), noinline)) void tile(int64_t K, const float* a, int64_t sai, int64_t sak,
                                                    const float* b, int64_t sbk, __mmask16 m0, __mmask16 m1, float alpha,
                                                    float beta, float* c, int64_t ldc, const Next& next)
{
    __m512 acc[MR][2];
    for (int r = 0; r < MR; ++r)
        acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    next.prefetchC(ldc);
    for (int64_t k = 0; k < K; ++k) {
        next.prefetchA(k);
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

// The same for a panel of 16 columns or fewer (the adaptive tails' 16 and 4, of a long k): one
// register per row, half the multiply-adds of a 32-column tile wasted otherwise. Masked: op(B)
// read in place with fewer than 16 columns (no copy of a k x 32 panel for 4 columns).
template <int MR, bool Masked>
__attribute__((target("avx512f"), noinline)) void tile16(int64_t K, const float* a, int64_t sai, int64_t sak,
                                                      const float* b, int64_t sbk, __mmask16 m0, float alpha, float beta,
                                                      float* c, int64_t ldc, const Next& next)
{
    __m512 acc[MR];
    for (int r = 0; r < MR; ++r)
        acc[r] = _mm512_setzero_ps();
    next.prefetchC(ldc);   // op(A) not: half a full tile's sums a k step, a prefetch each cost more than it saved
    for (int64_t k = 0; k < K; ++k) {
        const __m512 b0 = Masked ? _mm512_maskz_loadu_ps(m0, b + k * sbk) : _mm512_loadu_ps(b + k * sbk);
        for (int r = 0; r < MR; ++r)
            acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * sai + k * sak]), b0, acc[r]);
    }
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (int r = 0; r < MR; ++r) {
        float* row = c + r * ldc;
        __m512 o0 = _mm512_mul_ps(va, acc[r]);
        if (beta != 0.f)
            o0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, row), o0);
        _mm512_mask_storeu_ps(row, m0, o0);
    }
}

// How a panel is read: both registers, or the 16-column tile from a copy (or full 16 columns
// in place), or the 16-column tile under a mask in place.
enum PanelKind : unsigned char { kFull, kHalf, kHalfMasked };

template <int MR>
__attribute__((target("avx512f"))) inline void tiles(int64_t K, const float* a, int64_t sai, int64_t sak,
                                                     const float* const* b, const int64_t* sbk, const int64_t* j,
                                                     const __mmask16* m, const PanelKind* kind, int64_t panels,
                                                     float alpha, float beta, float* c, int64_t ldc, const Next& next)
{
    for (int64_t q = 0; q < panels; ++q) {
        if (kind[q] == kFull)
            tile<MR>(K, a, sai, sak, b[q], sbk[q], m[2 * q], m[2 * q + 1], alpha, beta, c + j[q], ldc, next);
        else if (kind[q] == kHalf)
            tile16<MR, false>(K, a, sai, sak, b[q], sbk[q], m[2 * q], alpha, beta, c + j[q], ldc, next);
        else
            tile16<MR, true>(K, a, sai, sak, b[q], sbk[q], m[2 * q], alpha, beta, c + j[q], ldc, next);
    }
}

// Panels [p0, p1) in groups (a group's copies made together, up to 256 KiB), rows [r0, r1).
__attribute__((target("avx512f"))) void run(bool ta, bool tb, int64_t N, int64_t K, float alpha,
                                            const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                                            float* C, int64_t ldc, int64_t p0, int64_t p1, int64_t r0, int64_t r1,
                                            float* panels)
{
    const int64_t group = std::clamp<int64_t>(kGroupFloats / std::max<int64_t>(1, K * kNR), 1, kMaxGroup);
    const float* b[kMaxGroup];
    int64_t sbk[kMaxGroup], j[kMaxGroup];
    __mmask16 m[2 * kMaxGroup];
    PanelKind kind[kMaxGroup];
    // B's panels copied too (rows 128 bytes apart) for eight row tiles or more when B's own rows
    // meet in too few L1 sets: a row stride of g bytes (its power of two up to 4 KiB) puts K g /
    // 4 KiB of a panel's lines in each set, past the 12 ways from 8 on (256 x 1024 x 512 tn: 140
    // against 175 GFLOP/s; the attention items' 64 columns over 128 k stay in place, 5% faster).
    const int64_t g = std::gcd<int64_t>(ldb * int64_t(sizeof(float)), 4096);
    const bool copyB = r1 - r0 >= 8 * kMR && K * g > 8 * 4096;   // 64 rows: the copy under 6% of the work
    // A short k (64 or less: the attention's Q K^T, the tails' 4 and 16): the row tiles outer,
    // each over the group's panels (in L1 or L2), so C is written 8 rows at a time along its rows
    // (2 lines a row per tile otherwise, 39-128 rows of them at once, each line a miss where C
    // comes from memory: the tails' 39 x 40,000 x 4 wrote 4-9 GB/s). With a longer k a panel
    // stays in L1 for every row tile instead, and a tile's sums hide its C's misses.
    const bool rowsOuter = K <= 64;
    for (int64_t g0 = p0; g0 < p1; g0 += group) {
        const int64_t np = std::min(group, p1 - g0);
        for (int64_t q = 0; q < np; ++q) {
            const int64_t jq = (g0 + q) * kNR, nv = std::min(kNR, N - jq);
            j[q] = jq;
            m[2 * q] = __mmask16(nv >= 16 ? 0xffffu : (1u << nv) - 1);
            m[2 * q + 1] = __mmask16(nv >= 32 ? 0xffffu : (nv > 16 ? (1u << (nv - 16)) - 1 : 0u));
            kind[q] = nv > 16 ? kFull : !tb && nv < 16 ? kHalfMasked : kHalf;
            if (!tb && nv <= 16) {   // 16 columns or fewer of B: in place (under a mask if fewer)
                b[q] = B + jq, sbk[q] = ldb;
            } else if (tb || nv < kNR || copyB) {   // B^T, the edge panel (loads past N would leave the rows)
                // B^T of a short k: the next panel's 32 rows of B (8 KiB at most) fetched while this
                // one is transposed, so its transposes do not wait on each line (8 rows at a time:
                // too few misses at once for memory's latency). Items of the attention's Q K^T and
                // dO V^T from memory: 3-5% on one thread; bert's tails nt 16 x 8,000 x 64 and 11 x
                // 18,522 x 16: 10-20%. Not for a longer k: bert's head (k 256, 32 KiB) lost 5%.
                if (tb && K <= 64 && jq + 2 * kNR <= N)
                    for (int64_t r = jq + kNR; r < jq + 2 * kNR; ++r)
                        for (int64_t l = 0; l < K; l += 16)
                            _mm_prefetch(reinterpret_cast<const char*>(B + r * ldb + l), _MM_HINT_T0);
                float* out = panels + q * K * kNR;
                gemmpack::packPanel(tb, B, ldb, jq, nv, 0, K, out);
                b[q] = out, sbk[q] = kNR;
            } else {                // op(B) = B: rows of ldb floats, read in place
                b[q] = B + jq, sbk[q] = ldb;
            }
        }
        // A^T copied when it is past L2 (768 x 512 and up): the attention items' 128 x 128 stays in
        // place, where the copy waited on each line (207 against 175 GFLOP/s on one thread).
        // Each panel meets the row tiles in turn, op(A) read in place (a copy of A^T per row tile
        // was tried: it waited on each line, 5-20% slower on one thread at 768 x 256 x 512 and
        // bert's 4,002 x 256 x 152).
        const int64_t sai = ta ? 1 : lda, sak = ta ? lda : 1;
        // The tile after (q, i) in the order below (null past this call's last): its op(A) lines
        // (8 rows of K: ceil(K / 16) lines a row, or one line of 8 a k step for A^T) and its C
        // rows within [r0, r1) (past r1 they are another task's: a fetch for writing would take
        // them from its core).
        const auto nextOf = [&](int64_t q, int64_t i) {
            Next n;
            int64_t nq = q, ni = i;   // nq may be np: the next group's first panel
            if (rowsOuter) {
                if (++nq == np && i + kMR < r1)
                    nq = 0, ni = i + kMR;
                else if (nq == np)
                    ni = r0;
            } else if ((ni += kMR) >= r1) {
                ++nq, ni = r0;
            }
            if (g0 + nq >= p1)
                return n;
            const int64_t nj = (g0 + nq) * kNR;
            n.pa = A + ni * sai;
            n.s1 = lda;
            n.s2 = ta ? 8 * lda : 16;
            n.lines = ta ? K : 8 * ((K + 15) / 16);
            if (n.lines > 128)   // over 8 KiB: fetched this early, the lines would leave L1 before their use
                n.lines = 0;
            n.pc = C + ni * ldc + nj;
            n.rows = std::min<int64_t>(kMR, r1 - ni);
            n.cols = std::min<int64_t>(kNR, N - nj);
            return n;
        };
        const auto visit = [&](int64_t q, int64_t i) {
            const int64_t rows = std::min<int64_t>(kMR, r1 - i);
            const float* a = A + i * (ta ? 1 : lda);
            float* c = C + i * ldc;
            const Next next = nextOf(q, i);
            switch (rows) {
            case 8: tiles<8>(K, a, sai, sak, b + q, sbk + q, j + q, m + 2 * q, kind + q, 1, alpha, beta, c, ldc, next); break;
            case 7: tiles<7>(K, a, sai, sak, b + q, sbk + q, j + q, m + 2 * q, kind + q, 1, alpha, beta, c, ldc, next); break;
            case 6: tiles<6>(K, a, sai, sak, b + q, sbk + q, j + q, m + 2 * q, kind + q, 1, alpha, beta, c, ldc, next); break;
            case 5: tiles<5>(K, a, sai, sak, b + q, sbk + q, j + q, m + 2 * q, kind + q, 1, alpha, beta, c, ldc, next); break;
            case 4: tiles<4>(K, a, sai, sak, b + q, sbk + q, j + q, m + 2 * q, kind + q, 1, alpha, beta, c, ldc, next); break;
            case 3: tiles<3>(K, a, sai, sak, b + q, sbk + q, j + q, m + 2 * q, kind + q, 1, alpha, beta, c, ldc, next); break;
            case 2: tiles<2>(K, a, sai, sak, b + q, sbk + q, j + q, m + 2 * q, kind + q, 1, alpha, beta, c, ldc, next); break;
            case 1: tiles<1>(K, a, sai, sak, b + q, sbk + q, j + q, m + 2 * q, kind + q, 1, alpha, beta, c, ldc, next); break;
            default: break;
            }
        };
        if (rowsOuter) {
            for (int64_t i = r0; i < r1; i += kMR)
                for (int64_t q = 0; q < np; ++q)
                    visit(q, i);
        } else {
            for (int64_t q = 0; q < np; ++q)
                for (int64_t i = r0; i < r1; i += kMR)
                    visit(q, i);
        }
    }
}
#endif

}  // namespace

bool smallGemmAvailable() { return g_on.load(std::memory_order_relaxed) && cpuHasAvx512(); }
void setSmallGemm(bool on) { g_on.store(on, std::memory_order_relaxed); }

void smallGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
               const float* B, int64_t ldb, float beta, float* C, int64_t ldc, int64_t p0, int64_t p1, int64_t r0,
               int64_t r1)
{
    if (p1 < 0)
        p1 = smallGemmPanels(N);
    if (r1 < 0)
        r1 = M;
    if (M <= 0 || N <= 0 || p0 >= p1 || r0 >= r1)
        return;
    // The copies start on a cache line: a 64-byte load across two lines halves the tile's rate.
    thread_local std::vector<float> panels;
    const int64_t group = std::clamp<int64_t>(kGroupFloats / std::max<int64_t>(1, K * kNR), 1, kMaxGroup);
    panels.resize(size_t(std::max<int64_t>(1, std::min(group, p1 - p0) * K * kNR) + 16));
    const auto aligned = [](std::vector<float>& v) {
        return reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(v.data()) + 63) & ~uintptr_t(63));
    };
#if defined(WT_SMALLGEMM_X86)
    run(ta, tb, N, K, alpha, A, lda, B, ldb, beta, C, ldc, p0, p1, r0, r1, aligned(panels));
#else
    (void)aligned, (void)ta, (void)tb, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)beta, (void)C, (void)ldc;
#endif
}

}  // namespace wt::kernels::cpu
