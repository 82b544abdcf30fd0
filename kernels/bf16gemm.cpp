// GEMM with bfloat16 inputs and fp32 sums, blocked like blockedgemm.cpp (Goto's structure): a
// block of op(B) (all of K x up to kNC columns) packed once into 32-column panels of kKC k on
// the pool, each task packs a block of op(A) (up to kMC x kKC) into 8-row panels per k block, and a micro-kernel multiplies one row
// panel by one column panel into a kMR x kNR tile held in registers, added to C in place (the
// next tile's C fetched meanwhile). Packing rounds to bfloat16 and stores each pair of
// consecutive k as one 32-bit word (even k in the low half), the operand layout of vdpbf16ps;
// with AVX2 it rounds 8 floats per instruction and transposes 8 x 8 blocks of words in registers.
//
// The order of the sums is fixed by the sizes alone (as blockedgemm.h's): every element of C is
// summed over k pairs in order within blocks of kKC, the first block writes alpha s (+ beta C),
// a later one continues the sum read back from C (alpha 1) or adds alpha s to C. A tile of C
// is written by one thread, so the bits do not depend on the thread count.
#include "kernels/bf16gemm.h"

#include "kernels/cpurows.h"
#include "kernels/gemmtile.h"
#include "kernels/threadpool.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define WT_BF16_X86 1
#endif

namespace wt::kernels::cpu {

namespace {

using gemmtile::kMR;
using gemmtile::kNR;
using gemmtile::Store;
constexpr int64_t kKC = 512;    // k per block (even): a column panel is 32 KiB, in L1 (48 KiB)
constexpr int64_t kMC = 256;    // rows per task at most: its A block is 256 KiB, in L2 (1 MiB)
constexpr int64_t kNC = 4096;   // columns per packed B block: 4 MiB, in L3 (32 MiB)

bool cpuHasBf16()
{
#if defined(WT_BF16_X86)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#else
    return false;
#endif
}

bool cpuHasAvx2()
{
#if defined(WT_BF16_X86)
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

std::atomic<bool> g_native{cpuHasBf16()};
const bool g_avx2 = cpuHasAvx2();

uint32_t bitsOf(float x)
{
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
}

// The word of the pair (lo, hi): both rounded, lo in the low half.
uint32_t pairWord(float lo, float hi) { return uint32_t(toBf16(lo)) | (uint32_t(toBf16(hi)) << 16); }

#if defined(WT_BF16_X86)
// toBf16 of 8 floats in the high halves of the words (the low halves are garbage).
__attribute__((target("avx2"))) inline __m256i round8(__m256 x)
{
    const __m256i u = _mm256_castps_si256(x);
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                           _mm256_set1_epi32(0x7f800000));
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    const __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), odd));
    return _mm256_blendv_epi8(r, _mm256_or_si256(u, _mm256_set1_epi32(0x00400000)), nan);
}

// The pair words of 16 consecutive k (at p): 8 words, pair order.
__attribute__((target("avx2"))) inline __m256i pairsAlongK(const float* p)
{
    const __m256i a = _mm256_srli_epi32(round8(_mm256_loadu_ps(p)), 16);
    const __m256i b = _mm256_srli_epi32(round8(_mm256_loadu_ps(p + 8)), 16);
    // packus works per 128-bit lane: words 0 1 4 5 | 2 3 6 7, put back in order.
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
}

// The words of 8 consecutive columns of two rows k (lo) and k + 1 (hi).
__attribute__((target("avx2"))) inline __m256i pairsOfRows(const float* lo, const float* hi)
{
    return _mm256_blend_epi16(_mm256_srli_epi32(round8(_mm256_loadu_ps(lo)), 16), round8(_mm256_loadu_ps(hi)), 0xaa);
}

// r[0..8) as the rows of an 8 x 8 block of 32-bit words, transposed in place.
__attribute__((target("avx2"))) inline void transpose8(__m256i* r)
{
    __m256 t[8], s[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(_mm256_castsi256_ps(r[i]), _mm256_castsi256_ps(r[i + 1]));
        t[i + 1] = _mm256_unpackhi_ps(_mm256_castsi256_ps(r[i]), _mm256_castsi256_ps(r[i + 1]));
    }
    for (int i = 0; i < 8; i += 4) {
        s[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
        s[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
        s[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        s[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
    }
    for (int i = 0; i < 4; ++i) {
        r[i] = _mm256_castps_si256(_mm256_permute2f128_ps(s[i], s[i + 4], 0x20));
        r[i + 4] = _mm256_castps_si256(_mm256_permute2f128_ps(s[i], s[i + 4], 0x31));
    }
}
#endif

// One panel of width w (kMR rows of op(A) or kNR columns of op(B)): x [x0, x0 + xv) and
// k [k0, k0 + kv) of the matrix at src, element (x, k) at src[x ld + k] when kAlong (k
// consecutive in memory) else src[k ld + x]; pair q, position x at out[q w + x]; zeros past
// xv and past kv.
#if defined(WT_BF16_X86)
__attribute__((target("avx2")))
#endif
void packPanel(const float* src, int64_t ld, bool kAlong, int64_t x0, int64_t xv, int64_t w, int64_t k0,
               int64_t kv, uint32_t* out)
{
    const int64_t kq = (kv + 1) / 2;
    auto at = [&](int64_t x, int64_t k) { return kAlong ? src[(x0 + x) * ld + k0 + k] : src[(k0 + k) * ld + x0 + x]; };
    int64_t qd = 0;   // pairs done by the vector paths, for every x
#if defined(WT_BF16_X86)
    if (g_avx2 && xv == w) {
        if (kAlong) {
            for (; 2 * qd + 16 <= kv; qd += 8)
                for (int64_t xb = 0; xb < w; xb += 8) {
                    __m256i r[8];
                    for (int i = 0; i < 8; ++i)
                        r[i] = pairsAlongK(src + (x0 + xb + i) * ld + k0 + 2 * qd);
                    transpose8(r);
                    for (int i = 0; i < 8; ++i)
                        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (qd + i) * w + xb), r[i]);
                }
        } else {
            for (; 2 * qd + 2 <= kv; ++qd) {
                const float* lo = src + (k0 + 2 * qd) * ld + x0;
                for (int64_t xb = 0; xb < w; xb += 8)
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + qd * w + xb),
                                        pairsOfRows(lo + xb, lo + ld + xb));
            }
        }
    }
#endif
    for (int64_t q = qd; q < kq; ++q)
        for (int64_t x = 0; x < w; ++x) {
            const int64_t k = 2 * q;
            out[q * w + x] = x >= xv ? 0u : pairWord(at(x, k), k + 1 < kv ? at(x, k + 1) : 0.f);
        }
}

// Rows [i0, i0 + mv) of op(A) over k [k0, k0 + kv) as ceil(mv / kMR) panels of kq pairs
// (panel p at out + p kq kMR). With ta, op(A)'s rows are consecutive in A: the full panels are
// packed pair by pair across the whole block, two rows of A read once each, instead of panel
// by panel (8 floats of every row of A each time).
#if defined(WT_BF16_X86)
__attribute__((target("avx2")))
#endif
void packA(bool ta, const float* A, int64_t lda, int64_t i0, int64_t mv, int64_t k0, int64_t kv, uint32_t* out)
{
    const int64_t kq = (kv + 1) / 2, full = mv / kMR, mp = (mv + kMR - 1) / kMR;
    int64_t p = 0;
#if defined(WT_BF16_X86)
    if (ta && g_avx2 && full > 0) {
        for (int64_t q = 0; 2 * q + 2 <= kv; ++q) {
            const float* lo = A + (k0 + 2 * q) * lda + i0;
            for (int64_t pp = 0; pp < full; ++pp)
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (pp * kq + q) * kMR),
                                    pairsOfRows(lo + pp * kMR, lo + lda + pp * kMR));
        }
        if (kv % 2)   // the last pair, k odd: its high half zero
            for (int64_t pp = 0; pp < full; ++pp)
                for (int64_t r = 0; r < kMR; ++r)
                    out[(pp * kq + kq - 1) * kMR + r] = pairWord(A[(k0 + kv - 1) * lda + i0 + pp * kMR + r], 0.f);
        p = full;
    }
#endif
    for (; p < mp; ++p)
        packPanel(A, lda, !ta, i0 + p * kMR, std::min(kMR, mv - p * kMR), kMR, k0, kv, out + p * kq * kMR);
}

#if defined(WT_BF16_X86)
// One 8 x 32 tile on vdpbf16ps: packed a (8 words per pair), packed b (32 words per pair), the
// first mt rows and the columns under m0 / m1 of C written as `how` says; cnext (8 rows, or
// null) is the next tile's C, fetched for writing meanwhile.
__attribute__((target("avx512f,avx512bf16"))) void tileNative(int64_t kq, const uint32_t* a, const uint32_t* b,
                                                              float* c, int64_t ldc, int64_t mt, __mmask16 m0,
                                                              __mmask16 m1, float alpha, float beta, Store how,
                                                              const float* cnext)
{
    __m512 acc[kMR][2];
    gemmtile::begin(acc, c, ldc, mt, m0, m1, how, cnext);
#pragma GCC unroll 2
    for (int64_t q = 0; q < kq; ++q) {
        const __m512i b0 = _mm512_loadu_si512(b + q * kNR), b1 = _mm512_loadu_si512(b + q * kNR + 16);
#pragma GCC unroll 8
        for (int r = 0; r < kMR; ++r) {
            const __m512i av = _mm512_set1_epi32(int(a[q * kMR + r]));
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], (__m512bh)av, (__m512bh)b0);
            acc[r][1] = _mm512_dpbf16_ps(acc[r][1], (__m512bh)av, (__m512bh)b1);
        }
    }
    gemmtile::store(acc, c, ldc, mt, m0, m1, alpha, beta, how);
}
#endif

// The same tile in fp32 arithmetic, for CPUs without AVX512-BF16 (products of two bfloat16 are
// exact in fp32): vdpbf16ps's order, the odd k's product added first, then the even one's.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
void tilePortable(int64_t kq, const uint32_t* a, const uint32_t* b, float* c, int64_t ldc, int64_t mt, int64_t nt,
                  float alpha, float beta, Store how)
{
    float acc[kMR][kNR] = {};
    if (how == Store::Continue)
        for (int64_t r = 0; r < mt; ++r)
            for (int64_t j = 0; j < nt; ++j)
                acc[r][j] = c[r * ldc + j];
    float b0[kNR], b1[kNR];
    for (int64_t q = 0; q < kq; ++q) {
        const uint32_t* bq = b + q * kNR;
        for (int64_t j = 0; j < kNR; ++j) {
            b0[j] = fromBf16(uint16_t(bq[j]));
            b1[j] = fromBf16(uint16_t(bq[j] >> 16));
        }
        for (int64_t r = 0; r < kMR; ++r) {
            const uint32_t v = a[q * kMR + r];
            const float a0 = fromBf16(uint16_t(v)), a1 = fromBf16(uint16_t(v >> 16));
            for (int64_t j = 0; j < kNR; ++j) {
                const float s = acc[r][j] + a1 * b1[j];
                acc[r][j] = s + a0 * b0[j];
            }
        }
    }
    for (int64_t r = 0; r < mt; ++r)
        for (int64_t j = 0; j < nt; ++j) {
            float& o = c[r * ldc + j];
            const float s = acc[r][j];
            o = how == Store::Continue    ? s
                : how == Store::AddScaled ? o + alpha * s
                : how == Store::FirstBeta ? alpha * s + beta * o
                                          : alpha * s;
        }
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

}  // namespace

uint16_t toBf16(float x)
{
    uint32_t u = bitsOf(x);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return uint16_t((u >> 16) | 0x0040u);   // NaN: keep it a (quiet) NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

float fromBf16(uint16_t b)
{
    const uint32_t u = uint32_t(b) << 16;
    float x;
    std::memcpy(&x, &u, 4);
    return x;
}

bool bf16Native() { return g_native.load(std::memory_order_relaxed); }
void setBf16Native(bool on) { g_native.store(on && cpuHasBf16(), std::memory_order_relaxed); }

Bf16GemmSizes bf16GemmSizes() { return {kMR, kNR, kKC, kMC, kNC}; }

void gemmBf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
              const float* B, int64_t ldb, float beta, float* C, int64_t ldc)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0 || alpha == 0.f) {   // BLAS: C = beta C, A and B not read
        scaleC(C, ldc, M, N, beta);
        return;
    }
    const bool native = bf16Native();
    // blockedgemm.cpp's split: 4 tasks per thread, rows per task first, then panel groups.
    const int64_t want = 4 * int64_t(std::max(1, cpu::threads()));
    const int64_t mc = std::clamp<int64_t>((M / want + kMR - 1) / kMR * kMR, 32, kMC);
    const int64_t mtasks = (M + mc - 1) / mc;
    // All of op(B)'s k for a block of columns is packed before the tasks run, and a task runs
    // every k block of its rows: its block of C stays in L2 from one k block to the next instead
    // of making a round trip to memory per k block (10002 x 512 for the head's weight gradient).
    // The packed block is at most ~32 MiB: fewer columns per block when K is large.
    const int64_t nc = std::clamp<int64_t>((int64_t(16) << 20) / K / kNR * kNR, kNR, kNC);
    const int64_t kblocks = (K + kKC - 1) / kKC;
    thread_local std::vector<uint32_t> packedB;
    std::vector<uint32_t>& pb = packedB;   // this call's (the workers see it through the reference)
    for (int64_t j0 = 0; j0 < N; j0 += nc) {
        const int64_t nv = std::min(nc, N - j0), np = (nv + kNR - 1) / kNR;
        const int64_t groups = std::clamp<int64_t>((want + mtasks - 1) / mtasks, 1, np);
        const int64_t blockWords = np * (kKC / 2) * kNR;   // a full k block's panels
        if (pb.size() < size_t(kblocks * blockWords))
            pb.resize(size_t(kblocks * blockWords));
        uint32_t* bp = pb.data();
        cpu::parallelFor(np * kblocks, 4, [&](int64_t lo, int64_t hi) {
            for (int64_t t = lo; t < hi; ++t) {
                const int64_t kb = t / np, p = t % np, k0 = kb * kKC, kv = std::min(kKC, K - k0);
                packPanel(B, ldb, tb, j0 + p * kNR, std::min(kNR, nv - p * kNR), kNR, k0, kv,
                          bp + kb * blockWords + p * ((kv + 1) / 2) * kNR);
            }
        });
        cpu::parallelFor(mtasks * groups, 1, [&](int64_t lo, int64_t hi) {
            thread_local std::vector<uint32_t> packedA;
            if (packedA.size() < size_t(kMC * kKC / 2))
                packedA.resize(size_t(kMC * kKC / 2));
            for (int64_t t = lo; t < hi; ++t) {
                const int64_t mt = t / groups, g = t % groups;
                const int64_t i0 = mt * mc, mv = std::min(mc, M - i0), mp = (mv + kMR - 1) / kMR;
                int64_t p0, p1;
                chunkRange(np, int(groups), int(g), p0, p1);
                for (int64_t kb = 0; kb < kblocks; ++kb) {
                    const int64_t k0 = kb * kKC, kv = std::min(kKC, K - k0), kq = (kv + 1) / 2, panel = kq * kNR;
                    const Store how = k0 == 0 ? (beta == 0.f ? Store::First : Store::FirstBeta)
                                              : (alpha == 1.f ? Store::Continue : Store::AddScaled);
                    packA(ta, A, lda, i0, mv, k0, kv, packedA.data());
                    for (int64_t pn = p0; pn < p1; ++pn) {
                        const int64_t jt = j0 + pn * kNR, cols = std::min(kNR, N - jt);
                        for (int64_t pm = 0; pm < mp; ++pm) {
                            const int64_t it = i0 + pm * kMR, rows = std::min(kMR, M - it);
                            const uint32_t* a = packedA.data() + pm * kq * kMR;
                            const uint32_t* b = bp + kb * blockWords + pn * panel;
#if defined(WT_BF16_X86)
                            if (native) {
                                const __mmask16 m0 = __mmask16(cols >= 16 ? 0xffffu : (1u << cols) - 1);
                                const __mmask16 m1 =
                                    __mmask16(cols >= 32 ? 0xffffu : (cols > 16 ? (1u << (cols - 16)) - 1 : 0u));
                                // The next tile: 8 rows down, or the next panel's first; none past M.
                                const float* next = pm + 1 < mp ? C + (it + kMR) * ldc + jt
                                                    : pn + 1 < p1 ? C + i0 * ldc + jt + kNR : nullptr;
                                if (next && pm + 2 == mp && M - (it + kMR) < kMR)
                                    next = nullptr;
                                tileNative(kq, a, b, C + it * ldc + jt, ldc, rows, m0, m1, alpha, beta, how, next);
                                continue;
                            }
#endif
                            tilePortable(kq, a, b, C + it * ldc + jt, ldc, rows, cols, alpha, beta, how);
                        }
                    }
                }
            }
        });
    }
    (void)native;
}

}  // namespace wt::kernels::cpu
