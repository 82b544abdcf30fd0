// blockedgemm.h: packed op(B) blocks shared by the pool, packed op(A) blocks per task, an
// 8 x 32 register tile (16 zmm accumulators, op(A)'s element broadcast from the packed panel).
#include "kernels/blockedgemm.h"

#include "kernels/cpurows.h"
#include "kernels/gemmpack.h"
#include "kernels/gemmtile.h"
#include "kernels/smallgemm.h"
#include "kernels/threadpool.h"

#include <algorithm>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define WT_BLOCKEDGEMM_X86 1
#endif

namespace wt::kernels::cpu {

namespace {

using gemmtile::kMR;
using gemmtile::kNR;
using gemmtile::Store;
constexpr int64_t kKC = 256;    // k per block: a packed column panel is 32 KiB, in L1 (48 KiB)
constexpr int64_t kMC = 256;    // rows per task at most: its A block is 256 KiB, in L2 (1 MiB)
constexpr int64_t kNC = 4096;   // columns per packed B block: 4 MiB, in L3 (32 MiB)
// A column block's op(B) over the whole of k packed at once up to this many floats (16 MiB).
constexpr int64_t kWholeKFloats = 4 * 1024 * 1024;
// ... for column blocks whose k block is less than this many multiply-adds (~20 us on 2 cores).
constexpr double kWholeKMacs = 16.0 * 1024 * 1024;

#if defined(WT_BLOCKEDGEMM_X86)
using gemmpack::transpose8;
#endif

// Rows [i0, i0 + mv) and k [k0, k0 + kv) of op(A) as ceil(mv / 8) panels, panel p's k-th
// column of 8 rows at (p kv + k) 8; zeros past mv.
[[maybe_unused]]
#if defined(WT_BLOCKEDGEMM_X86)
__attribute__((target("avx2")))
#endif
void packA(bool ta, const float* A, int64_t lda, int64_t i0, int64_t mv, int64_t k0, int64_t kv, float* out)
{
    for (int64_t p = 0; p * kMR < mv; ++p) {
        float* o = out + p * kv * kMR;
        const int64_t rows = std::min(kMR, mv - p * kMR), ib = i0 + p * kMR;
        int64_t kd = 0;   // k done by the vector paths
#if defined(WT_BLOCKEDGEMM_X86)
        if (rows == kMR) {
            if (ta)   // op(A)'s rows are A's columns: 8 consecutive floats per k
                for (; kd < kv; ++kd)
                    _mm256_storeu_ps(o + kd * kMR, _mm256_loadu_ps(A + (k0 + kd) * lda + ib));
            else
                for (; kd + 8 <= kv; kd += 8)
                    transpose8(A + ib * lda + k0 + kd, lda, o + kd * kMR, kMR);
        }
#endif
        for (int64_t k = kd; k < kv; ++k)
            for (int64_t r = 0; r < kMR; ++r)
                o[k * kMR + r] = r < rows ? (ta ? A[(k0 + k) * lda + ib + r] : A[(ib + r) * lda + k0 + k]) : 0.f;
    }
}

// Column panel p (columns j0 + 32 p ..) of op(B) over k [k0, k0 + kv): row k at k 32; zeros
// past column j0 + nv.
inline void packB(bool tb, const float* B, int64_t ldb, int64_t j0, int64_t nv, int64_t k0, int64_t kv, int64_t p, float* out)
{
    const int64_t jb = p * kNR;
    gemmpack::packPanel(tb, B, ldb, j0 + jb, std::min(kNR, nv - jb), k0, kv, out);
}

void scaleC(float* C, int64_t ldc, int64_t M, int64_t N, float beta)
{
    if (beta == 1.f)
        return;
    cpu::parallelFor(M, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, N)), [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
            float* row = C + i * ldc;
            if (beta == 0.f)   // BLAS: beta 0 overwrites (NaN in C does not survive)
                std::fill(row, row + N, 0.f);
            else
                for (int64_t j = 0; j < N; ++j)
                    row[j] *= beta;
        }
    });
}

#if defined(WT_BLOCKEDGEMM_X86)
// One 8 x 32 tile: packed a (8 per k), packed b (32 per k), the first mt rows and the columns
// under m0 / m1 of C written. When C is read (every k block but the first), the next tile's C
// (cnext, 8 rows) is fetched meanwhile: a sum that starts from C waits for C's lines otherwise
// (the tiles of a 4 MiB C come from L3 or memory, and a tile's k block is ~0.5 us of work).
__attribute__((target("avx512f"))) void tile(int64_t kv, const float* a, const float* b, float* c, int64_t ldc,
                                             int64_t mt, __mmask16 m0, __mmask16 m1, float alpha, float beta,
                                             Store how, const float* cnext)
{
    __m512 acc[kMR][2];
    gemmtile::begin(acc, c, ldc, mt, m0, m1, how, cnext);
#pragma GCC unroll 2
    for (int64_t k = 0; k < kv; ++k) {
        const __m512 b0 = _mm512_loadu_ps(b + k * kNR), b1 = _mm512_loadu_ps(b + k * kNR + 16);
#pragma GCC unroll 8
        for (int r = 0; r < kMR; ++r) {
            const __m512 av = _mm512_set1_ps(a[k * kMR + r]);
            acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
        }
    }
    gemmtile::store(acc, c, ldc, mt, m0, m1, alpha, beta, how);
}
#endif

}  // namespace

bool blockedGemmAvailable() { return smallGemmAvailable(); }

BlockedGemmSizes blockedGemmSizes() { return {kMR, kNR, kKC, kMC, kNC}; }

void blockedGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                 const float* B, int64_t ldb, float beta, float* C, int64_t ldc)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0 || alpha == 0.f) {   // BLAS: C = beta C, A and B not read
        scaleC(C, ldc, M, N, beta);
        return;
    }
#if defined(WT_BLOCKEDGEMM_X86)
    // Enough tasks for the pool to balance (4 per thread), each at least 32 rows: rows per task
    // first, then the panels of a B block split into groups when the rows alone give too few.
    const int64_t want = 4 * int64_t(std::max(1, cpu::threads()));
    const int64_t mc = std::clamp<int64_t>((M / want + kMR - 1) / kMR * kMR, 32, kMC);
    const int64_t mtasks = (M + mc - 1) / mc;
    thread_local std::vector<float> packedB;
    std::vector<float>& pb = packedB;   // this call's (the workers see it through the reference)
    // Task t's tiles over k block [k0, k0 + kv), op(B)'s panels at bp (panel p at bp + p kv 32),
    // op(A)'s block packed into packedA unless it holds it already (packedTask, packedK).
    const auto runTask = [&](int64_t t, int64_t j0, int64_t nv, int64_t np, int64_t groups, int64_t k0, int64_t kv,
                             const float* bp, float* packedA, int64_t& packedTask, int64_t& packedK) {
        const int64_t panel = kv * kNR;
        const Store how = k0 == 0 ? (beta == 0.f ? Store::First : Store::FirstBeta)
                                  : (alpha == 1.f ? Store::Continue : Store::AddScaled);
        const int64_t mt = t / groups, g = t % groups;
        const int64_t i0 = mt * mc, mv = std::min(mc, M - i0), mp = (mv + kMR - 1) / kMR;
        if (packedTask != mt || packedK != k0) {   // consecutive tasks of one row block share its pack
            packA(ta, A, lda, i0, mv, k0, kv, packedA);
            packedTask = mt, packedK = k0;
        }
        int64_t p0, p1;
        chunkRange(np, int(groups), int(g), p0, p1);
        for (int64_t pn = p0; pn < p1; ++pn) {
            const int64_t jt = j0 + pn * kNR, cols = std::min(kNR, N - jt);
            const __mmask16 m0 = __mmask16(cols >= 16 ? 0xffffu : (1u << cols) - 1);
            const __mmask16 m1 = __mmask16(cols >= 32 ? 0xffffu : (cols > 16 ? (1u << (cols - 16)) - 1 : 0u));
            for (int64_t pm = 0; pm < mp; ++pm) {
                const int64_t it = i0 + pm * kMR;
                // The next tile: 8 rows down, or the next panel's first (within C: rows past M are
                // never fetched, a tile's rows past mt are).
                const float* next = pm + 1 < mp ? C + (it + kMR) * ldc + jt : pn + 1 < p1 ? C + i0 * ldc + jt + kNR : nullptr;
                if (next && pm + 2 == mp && M - (it + kMR) < kMR)
                    next = nullptr;   // the last, partial tile: its rows past M are not C's
                tile(kv, packedA + pm * kv * kMR, bp + pn * panel, C + it * ldc + jt, ldc, std::min(kMR, M - it), m0,
                     m1, alpha, beta, how, next);
            }
        }
        (void)nv;
    };
    const auto taskA = []() -> float* {
        thread_local std::vector<float> packedA;
        if (packedA.size() < size_t(kMC * kKC))
            packedA.resize(size_t(kMC * kKC));
        return packedA.data();
    };
    for (int64_t j0 = 0; j0 < N; j0 += kNC) {
        const int64_t nv = std::min(kNC, N - j0), np = (nv + kNR - 1) / kNR;
        const int64_t groups = std::clamp<int64_t>((want + mtasks - 1) / mtasks, 1, np);
        const int64_t kblocks = (K + kKC - 1) / kKC;
        if (kblocks > 1 && K * np * kNR <= kWholeKFloats && double(M) * nv * kKC < kWholeKMacs) {
            // Every k block of this column block packed at once, then each task runs its tiles
            // over all k blocks in order: two pool jobs instead of two per k block. For the
            // narrow products of a long k (the adaptive tails' 39 x 16 x 40,000: 157 blocks of
            // about 2 us), where waking a worker twice per block cost more than the block.
            // Not for wider ones: each task then streams all of op(B) from L3 (5-10% slower at
            // 512 x 256 x 10,003 by CPU time), where a block's op(B) stays in L2 otherwise.
            if (pb.size() < size_t(K * np * kNR))
                pb.resize(size_t(K * np * kNR));
            float* bp = pb.data();
            cpu::parallelFor(kblocks * np, 4, [&](int64_t lo, int64_t hi) {
                for (int64_t u = lo; u < hi; ++u) {
                    const int64_t k0 = (u / np) * kKC, kv = std::min(kKC, K - k0), p = u % np;
                    packB(tb, B, ldb, j0, nv, k0, kv, p, bp + k0 * np * kNR + p * kv * kNR);
                }
            });
            cpu::parallelFor(mtasks * groups, 1, [&](int64_t lo, int64_t hi) {
                float* packedA = taskA();
                for (int64_t t = lo; t < hi; ++t) {
                    int64_t packedTask = -1, packedK = -1;
                    for (int64_t k0 = 0; k0 < K; k0 += kKC)
                        runTask(t, j0, nv, np, groups, k0, std::min(kKC, K - k0), bp + k0 * np * kNR, packedA,
                                packedTask, packedK);
                }
            });
            continue;
        }
        for (int64_t k0 = 0; k0 < K; k0 += kKC) {
            const int64_t kv = std::min(kKC, K - k0), panel = kv * kNR;
            if (pb.size() < size_t(np * panel))
                pb.resize(size_t(np * panel));
            float* bp = pb.data();
            cpu::parallelFor(np, 4, [&](int64_t lo, int64_t hi) {
                for (int64_t p = lo; p < hi; ++p)
                    packB(tb, B, ldb, j0, nv, k0, kv, p, bp + p * panel);
            });
            cpu::parallelFor(mtasks * groups, 1, [&](int64_t lo, int64_t hi) {
                float* packedA = taskA();
                int64_t packedTask = -1, packedK = -1;
                for (int64_t t = lo; t < hi; ++t)
                    runTask(t, j0, nv, np, groups, k0, kv, bp, packedA, packedTask, packedK);
            });
        }
    }
#else
    (void)ta, (void)tb, (void)A, (void)lda, (void)B, (void)ldb, (void)C, (void)ldc;
#endif
}

}  // namespace wt::kernels::cpu
