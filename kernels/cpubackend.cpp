// CPU backend: host memory, memcpy and OpenBLAS sgemm.
#include "kernels/backend.h"

#include <cblas.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "wheretime_config.h"

namespace wt::kernels {
namespace {

class CpuBackend final : public Backend {
public:
    BackendKind kind() const override { return BackendKind::Cpu; }
    std::string deviceName() const override { return "CPU"; }
    void* allocate(size_t bytes) override
    {
        void* p = std::calloc(bytes ? bytes : 1, 1);
        if (!p)
            throw DeviceError("out of host memory allocating " + std::to_string(bytes) + " bytes");
        return p;
    }
    void release(void* p) noexcept override { std::free(p); }
    void upload(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
    void download(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
    void zero(void* p, size_t bytes) override { std::memset(p, 0, bytes); }
    void gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
              float beta, float* C, int ldc) override
    {
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A,
                    lda, B, ldb, beta, C, ldc);
    }
    void gemmBatched(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, int64_t sA,
                     const float* B, int ldb, int64_t sB, float beta, float* C, int ldc, int64_t sC, int batch) override
    {
        for (int i = 0; i < batch; ++i)
            gemm(ta, tb, M, N, K, alpha, A + i * sA, lda, B + i * sB, ldb, beta, C + i * sC, ldc);
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
