// CPU backend: host memory, memcpy, and fp32 GEMM on our own AVX-512 kernels (smallgemm.h for
// the small products, blockedgemm.h for the rest), OpenBLAS's sgemm without AVX-512F or with
// WHERETIME_SMALL_GEMM=0.
#include "kernels/backend.h"
#include "kernels/bf16gemm.h"
#include "kernels/blockedgemm.h"
#include "kernels/cpurows.h"
#include "kernels/gemmclaim.h"
#include "kernels/smallgemm.h"
#include "kernels/threadpool.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "wheretime_config.h"

namespace wt::kernels {
namespace {

// A product of the batch below this many multiply-adds is split by batch item over the pool,
// each item one single-threaded sgemm: OpenBLAS would start its threads for every small
// product (2 MFLOP at the small presets' 128 x 128 x 64 attention) and wait for them each time.
constexpr double kSmallProductMacs = 32.0 * 1024 * 1024;
// Products up to this many multiply-adds that fit smallGemm's cache budget run on our own
// AVX-512 kernel (smallgemm.h), split by 32-column panels over the pool: 1.5-2.4x OpenBLAS's
// one-thread rate on this machine's shapes (bert's head and tails, the MLM transform, the
// attention items), and no OpenBLAS thread start. Larger ones (the gcn and transformer heads)
// run on our blocked GEMM (blockedgemm.h), on the pool.
constexpr double kOwnGemmMacs = 160.0 * 1024 * 1024;
// Multiply-adds per pool chunk of panels (a few microseconds of work: waking a worker costs about that).
constexpr double kOwnGemmChunkMacs = 1024.0 * 1024;

bool ownGemm(int M, int N, int K)
{
    // 16 columns or fewer: one panel, op(A) read once whatever its size (the adaptive tails' 39 x
    // 16 x 40,000 and 40,000 x 16 x 39, on smallgemm's 16-column tile).
    return cpu::vectorized() && cpu::smallGemmAvailable() && (cpu::smallGemmFits(M, K) || N <= 16) &&
           double(M) * N * K <= kOwnGemmMacs;
}

// Every other product with AVX-512F: 1.7-2.05x OpenBLAS's two-thread rate on the heads' shapes
// and 1024^3, every transposition, and 1.5-5x on narrow products (8 or 16 columns, 4 or 8 rows).
// On one thread OpenBLAS is ahead on the narrowest (0.7-0.95x: a 32-column tile of mostly
// padding), but the choice must not depend on the thread count (the same bits for any), so
// they run here too (docs/performance.md, "An fp32 GEMM at this machine's limit").
bool useBlockedGemm() { return cpu::vectorized() && cpu::blockedGemmAvailable(); }

class CpuBackend final : public Backend {
    static constexpr size_t kAlign = 64;   // bytes: a cache line

public:
    BackendKind kind() const override { return BackendKind::Cpu; }
    std::string deviceName() const override { return "CPU"; }
    // On a cache line: the GEMMs' and row kernels' 64-byte vectors then meet rows of 16k floats
    // whole, where calloc's 16-byte alignment split every one over two lines (the tails' 39 x
    // 40,000 x 4 wrote its C at 5.5 GB/s, on a line 12.4: docs/performance.md, "The fp32 GEMMs
    // in the workloads"). calloc's own pointer is kept just below (its zero pages stay lazy).
    void* allocate(size_t bytes) override
    {
        void* raw = std::calloc(bytes + kAlign, 1);
        if (!raw)
            throw DeviceError("out of host memory allocating " + std::to_string(bytes) + " bytes");
        const uintptr_t p = (reinterpret_cast<uintptr_t>(raw) + sizeof(void*) + kAlign - 1) & ~uintptr_t(kAlign - 1);
        reinterpret_cast<void**>(p)[-1] = raw;
        return reinterpret_cast<void*>(p);
    }
    void release(void* p) noexcept override
    {
        if (p)
            std::free(reinterpret_cast<void**>(p)[-1]);
    }
    void upload(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
    void download(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
    void zero(void* p, size_t bytes) override { std::memset(p, 0, bytes); }
    void gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
              float beta, float* C, int ldc) override
    {
        if (M > 0 && N > 0 && ownGemm(M, N, K)) {
            // Each element of C is summed by one thread in one order: any split gives the same bits.
            // By 32-column panels (each thread copies only its own panels of op(B)); by rows of 8
            // when the panels are too few to balance: the tails' 16 or 64 columns of 8,000-40,000
            // rows, and their 4-64 columns of 13-64 rows over a k of 8,000-40,000 (one panel, so
            // one thread before, at 9-90 GFLOP/s).
            const int64_t panels = cpu::smallGemmPanels(N), threads = cpu::threads();
            const bool byRows = panels < 4 * threads && M > 8;
            // By panels and blocks of their rows (256 or more) when the panels alone are under 16
            // a thread: the decoder's 8 panels of 512-1,024 rows were 8 units on 2 threads, the
            // last one's eighth of the call run by one thread while the other waited. Not finer:
            // each block copies its panel of op(B) again (B^T, or rows 1 KiB apart), and blocks of
            // 128 rows over a k of 512-1,024 made the copies 10-20% of the time.
            const int64_t tiles = (M + 7) / 8;
            const int64_t blocks = byRows || threads == 1 ? 1 : std::clamp<int64_t>((16 * threads + panels - 1) / panels, 1, std::max<int64_t>(1, M / 256));
            const int64_t units = byRows ? tiles : panels * blocks;
            const double unitMacs = std::max(1.0, double(K) * (byRows ? 8.0 * N : 32.0 * double(M) / double(blocks)));
            const int64_t minUnits = std::max<int64_t>(1, int64_t(kOwnGemmChunkMacs / unitMacs));
            cpu::claimUnits(units, minUnits, [&](int64_t lo, int64_t hi) {
                if (byRows) {
                    cpu::smallGemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0, -1, 8 * lo, std::min<int64_t>(M, 8 * hi));
                } else if (blocks == 1) {
                    cpu::smallGemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, lo, hi);
                } else {
                    for (int64_t u = lo; u < hi; ++u) {   // unit u: panel u / blocks, its row block u % blocks
                        int64_t t0, t1;
                        chunkRange(tiles, int(blocks), int(u % blocks), t0, t1);
                        cpu::smallGemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, u / blocks, u / blocks + 1,
                                       8 * t0, std::min<int64_t>(M, 8 * t1));
                    }
                }
            });
            return;
        }
        if (M > 0 && N > 0 && useBlockedGemm()) {
            // Tiles of C split over the pool; the k blocks' order is fixed: the same bits for any split.
            cpu::blockedGemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
            return;
        }
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A,
                    lda, B, ldb, beta, C, ldc);
    }
    void gemmBf16(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                  int ldb, float beta, float* C, int ldc) override
    {
        cpu::gemmBf16(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }
    void gemmBatched(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, int64_t sA,
                     const float* B, int ldb, int64_t sB, float beta, float* C, int ldc, int64_t sC, int batch) override
    {
        if (batch > 1 && M > 0 && N > 0 && ownGemm(M, N, K)) {
            // One item per claim on our own kernel, on one thread: the same bits for any split.
            cpu::claimUnits(batch, 1, [&](int64_t lo, int64_t hi) {
                for (int64_t i = lo; i < hi; ++i)
                    cpu::smallGemm(ta, tb, M, N, K, alpha, A + i * sA, lda, B + i * sB, ldb, beta, C + i * sC, ldc);
            });
            return;
        }
        const bool split = batch > 1 && cpu::vectorized() && cpu::threads() > 1 && double(M) * N * K < kSmallProductMacs;
        if (!split) {
            for (int i = 0; i < batch; ++i)
                gemm(ta, tb, M, N, K, alpha, A + i * sA, lda, B + i * sB, ldb, beta, C + i * sC, ldc);
            return;
        }
        // Each item is written by one thread in OpenBLAS's own order, so the bits do not depend
        // on the thread count or the split.
        // OpenBLAS's own calls, as cpurows.cpp's default thread count uses them.
        const int before = openblas_get_num_threads();
        openblas_set_num_threads(1);
        cpu::parallelFor(batch, 1, [&](int64_t lo, int64_t hi) {
            for (int64_t i = lo; i < hi; ++i)
                gemm(ta, tb, M, N, K, alpha, A + i * sA, lda, B + i * sB, ldb, beta, C + i * sC, ldc);
        });
        openblas_set_num_threads(before);
    }
    void synchronize() override {}
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

#if !defined(WT_KERNELS_CUDA)   // wt_kernels (no CUDA): the CUDA backend is the plugin's (capture/cudaplugin.h)
std::unique_ptr<Backend> makeCudaBackend()
{
    throw DeviceError("the CUDA backend is not linked in (it is the CUDA plugin libwheretime-cuda.so: use wheretime capture --backend cuda)");
}
bool cudaAvailable() { return false; }
std::string cudaUnavailableReason() { return "the CUDA backend is not linked in (it is the CUDA plugin libwheretime-cuda.so)"; }
#endif

}  // namespace wt::kernels
