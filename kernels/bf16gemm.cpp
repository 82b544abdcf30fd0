// GEMM with bfloat16 inputs and fp32 sums, blocked like every fast GEMM since Goto's: a block
// of B (kKC x kNC) packed once into column panels, each task packs a block of A (kMC x kKC)
// into row panels, and a micro-kernel multiplies one row panel by one column panel into a
// kMR x kNR tile held in registers. Packing rounds to bfloat16 and stores pairs of consecutive
// k next to each other, the operand layout of vdpbf16ps (even k in the low half).
#include "kernels/bf16gemm.h"

#include "kernels/cpurows.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WT_BF16_X86 1
#endif

namespace wt::kernels::cpu {

namespace {

constexpr int64_t kMR = 8;      // rows of a tile
constexpr int64_t kNR = 32;     // columns of a tile: two 16-float registers
constexpr int64_t kKC = 384;    // k per block (even): a column panel is 24 KiB, in L1
constexpr int64_t kMC = 96;     // rows per task: its A block is 72 KiB, in L2
constexpr int64_t kNC = 4096;   // columns per packed B block: 3 MiB, in L3

bool cpuHasBf16()
{
#if defined(WT_BF16_X86) && !defined(__clang__)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#else
    return false;
#endif
}

std::atomic<bool> g_native{cpuHasBf16()};

uint32_t bitsOf(float x)
{
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
}

// Packs rows [i0, i0 + mv) and k [k0, k0 + kv) of op(A) into ceil(mv / kMR) row panels of
// kq = ceil(kv / 2) pairs: panel p, pair q, row r at (p kq + q) kMR + r; zeros pad the edges.
void packA(bool ta, const float* A, int64_t lda, int64_t i0, int64_t mv, int64_t k0, int64_t kv, uint32_t* out)
{
    const int64_t kq = (kv + 1) / 2, panels = (mv + kMR - 1) / kMR;
    auto at = [&](int64_t i, int64_t k) { return ta ? A[k * lda + i] : A[i * lda + k]; };
    for (int64_t p = 0; p < panels; ++p)
        for (int64_t q = 0; q < kq; ++q) {
            uint32_t* o = out + (p * kq + q) * kMR;
            for (int64_t r = 0; r < kMR; ++r) {
                const int64_t i = p * kMR + r, k = 2 * q;
                if (i >= mv) {
                    o[r] = 0;
                    continue;
                }
                const uint32_t lo = toBf16(at(i0 + i, k0 + k));
                const uint32_t hi = k + 1 < kv ? toBf16(at(i0 + i, k0 + k + 1)) : 0u;
                o[r] = lo | (hi << 16);
            }
        }
}

// Packs column panel p (columns j0 + p kNR ..) of op(B) over k [k0, k0 + kv): pair q, column c,
// half h at (q kNR + c) 2 + h.
void packBPanel(bool tb, const float* B, int64_t ldb, int64_t j0, int64_t nv, int64_t k0, int64_t kv, int64_t p,
                uint16_t* out)
{
    const int64_t kq = (kv + 1) / 2;
    auto at = [&](int64_t k, int64_t j) { return tb ? B[j * ldb + k] : B[k * ldb + j]; };
    for (int64_t q = 0; q < kq; ++q) {
        uint16_t* o = out + q * kNR * 2;
        for (int64_t c = 0; c < kNR; ++c) {
            const int64_t j = p * kNR + c;
            for (int64_t h = 0; h < 2; ++h) {
                const int64_t k = 2 * q + h;
                o[c * 2 + h] = j < nv && k < kv ? toBf16(at(k0 + k, j0 + j)) : uint16_t(0);
            }
        }
    }
}

#if defined(WT_BF16_X86) && !defined(__clang__)
__attribute__((target("avx512f,avx512bf16"))) void microNative(int64_t kq, const uint32_t* a, const uint16_t* b,
                                                                float* tile)
{
    __m512 c[kMR][2];
#pragma GCC unroll 8
    for (int64_t r = 0; r < kMR; ++r)
        c[r][0] = c[r][1] = _mm512_setzero_ps();
    for (int64_t q = 0; q < kq; ++q) {
        const __m512i b0 = _mm512_loadu_si512(b + q * kNR * 2);
        const __m512i b1 = _mm512_loadu_si512(b + q * kNR * 2 + 32);
#pragma GCC unroll 8
        for (int64_t r = 0; r < kMR; ++r) {
            const __m512i av = _mm512_set1_epi32(int(a[q * kMR + r]));
            c[r][0] = _mm512_dpbf16_ps(c[r][0], (__m512bh)av, (__m512bh)b0);
            c[r][1] = _mm512_dpbf16_ps(c[r][1], (__m512bh)av, (__m512bh)b1);
        }
    }
#pragma GCC unroll 8
    for (int64_t r = 0; r < kMR; ++r) {
        _mm512_storeu_ps(tile + r * kNR, c[r][0]);
        _mm512_storeu_ps(tile + r * kNR + 16, c[r][1]);
    }
}
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
void microPortable(int64_t kq, const uint32_t* a, const uint16_t* b, float* tile)
{
    // vdpbf16ps's order: the odd k's product first, then the even one's, each added to the sum.
    float acc[kMR][kNR] = {};
    float b0[kNR], b1[kNR];
    for (int64_t q = 0; q < kq; ++q) {
        const uint16_t* bq = b + q * kNR * 2;
        for (int64_t c = 0; c < kNR; ++c) {
            b0[c] = fromBf16(bq[2 * c]);
            b1[c] = fromBf16(bq[2 * c + 1]);
        }
        for (int64_t r = 0; r < kMR; ++r) {
            const uint32_t v = a[q * kMR + r];
            const float a0 = fromBf16(uint16_t(v)), a1 = fromBf16(uint16_t(v >> 16));
            for (int64_t c = 0; c < kNR; ++c) {
                float s = acc[r][c] + a1 * b1[c];
                acc[r][c] = s + a0 * b0[c];
            }
        }
    }
    std::memcpy(tile, acc, sizeof acc);
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

void gemmBf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
              const float* B, int64_t ldb, float beta, float* C, int64_t ldc)
{
    if (M <= 0 || N <= 0)
        return;
    scaleC(C, ldc, M, N, beta);
    if (K <= 0 || alpha == 0.f)
        return;
    const bool native = bf16Native();
    std::vector<uint16_t> pb;
    for (int64_t j0 = 0; j0 < N; j0 += kNC) {
        const int64_t nv = std::min(kNC, N - j0), np = (nv + kNR - 1) / kNR;
        for (int64_t k0 = 0; k0 < K; k0 += kKC) {
            const int64_t kv = std::min(kKC, K - k0), kq = (kv + 1) / 2;
            const int64_t panelB = kq * kNR * 2;
            pb.resize(size_t(np * panelB));
            cpu::parallelFor(np, 4, [&](int64_t lo, int64_t hi) {
                for (int64_t p = lo; p < hi; ++p)
                    packBPanel(tb, B, ldb, j0, nv, k0, kv, p, pb.data() + p * panelB);
            });
            const int64_t tasks = (M + kMC - 1) / kMC;
            cpu::parallelFor(tasks, 1, [&](int64_t lo, int64_t hi) {
                std::vector<uint32_t> pa(size_t(kMC / kMR * kq * kMR));
                alignas(64) float tile[kMR * kNR];
                for (int64_t t = lo; t < hi; ++t) {
                    const int64_t i0 = t * kMC, mv = std::min(kMC, M - i0), mp = (mv + kMR - 1) / kMR;
                    packA(ta, A, lda, i0, mv, k0, kv, pa.data());
                    for (int64_t pn = 0; pn < np; ++pn) {
                        const uint16_t* b = pb.data() + pn * panelB;
                        const int64_t jt = j0 + pn * kNR, nt = std::min(kNR, N - jt);
                        for (int64_t pm = 0; pm < mp; ++pm) {
                            const uint32_t* a = pa.data() + pm * kq * kMR;
#if defined(WT_BF16_X86) && !defined(__clang__)
                            if (native)
                                microNative(kq, a, b, tile);
                            else
#endif
                                microPortable(kq, a, b, tile);
                            const int64_t it = i0 + pm * kMR, mt = std::min(kMR, M - it);
                            for (int64_t r = 0; r < mt; ++r) {
                                float* row = C + (it + r) * ldc + jt;
                                const float* s = tile + r * kNR;
                                for (int64_t c = 0; c < nt; ++c)
                                    row[c] += alpha * s[c];
                            }
                        }
                    }
                }
            });
        }
    }
    (void)native;
}

}  // namespace wt::kernels::cpu
