// CUDA backend: device memory, one stream, cuBLAS for matrix products (fp32 SGEMM in cuBLAS's
// default math mode: no TF32, so the results match the CPU backend, and the same kernel choice
// as PyTorch's fp32 matmuls; pedantic mode may pick slower kernels). Every CUDA and cuBLAS call is checked; failures become
// DeviceError with the call and the runtime's message. A machine without a GPU or driver gets
// an error from makeCudaBackend() and false from cudaAvailable(), never a crash.
#include "kernels/backend.h"
#include "kernels/launch.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

namespace wt::kernels {

void throwIfCudaError(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        throw DeviceError(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

namespace {

void checkCublas(cublasStatus_t s, const char* what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        throw DeviceError(std::string("cuBLAS error in ") + what + ": " + cublasGetStatusString(s));
}

class CudaBackend final : public Backend {
public:
    CudaBackend()
    {
        int n = 0;
        throwIfCudaError(cudaGetDeviceCount(&n), "cudaGetDeviceCount");
        if (n == 0)
            throw DeviceError("no CUDA device found");
        throwIfCudaError(cudaSetDevice(0), "cudaSetDevice");
        cudaDeviceProp prop{};
        throwIfCudaError(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
        m_name = prop.name;
        throwIfCudaError(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "cudaStreamCreate");
        cublasStatus_t s = cublasCreate(&m_cublas);
        if (s != CUBLAS_STATUS_SUCCESS) {
            cudaStreamDestroy(m_stream);
            checkCublas(s, "cublasCreate");
        }
        checkCublas(cublasSetStream(m_cublas, m_stream), "cublasSetStream");
        checkCublas(cublasSetMathMode(m_cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    }
    ~CudaBackend() override
    {
        cudaStreamSynchronize(m_stream);
        cublasDestroy(m_cublas);
        cudaStreamDestroy(m_stream);
    }
    BackendKind kind() const override { return BackendKind::Cuda; }
    std::string deviceName() const override { return m_name; }
    void* allocate(size_t bytes) override
    {
        void* p = nullptr;
        cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
        if (e != cudaSuccess)
            throw DeviceError("cudaMalloc of " + std::to_string(bytes) + " bytes failed: " + cudaGetErrorString(e));
        throwIfCudaError(cudaMemsetAsync(p, 0, bytes, m_stream), "cudaMemsetAsync");
        return p;
    }
    void release(void* p) noexcept override
    {
        cudaStreamSynchronize(m_stream);   // a kernel may still use it
        cudaFree(p);
    }
    void upload(void* dst, const void* src, size_t bytes) override
    {
        // Synchronous with respect to the host buffer, which the caller may reuse at once.
        throwIfCudaError(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, m_stream), "cudaMemcpyAsync(H2D)");
        throwIfCudaError(cudaStreamSynchronize(m_stream), "cudaStreamSynchronize");
    }
    void download(void* dst, const void* src, size_t bytes) override
    {
        throwIfCudaError(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, m_stream), "cudaMemcpyAsync(D2H)");
        throwIfCudaError(cudaStreamSynchronize(m_stream), "cudaStreamSynchronize");
    }
    void zero(void* p, size_t bytes) override
    {
        throwIfCudaError(cudaMemsetAsync(p, 0, bytes, m_stream), "cudaMemsetAsync");
    }
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
    void gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
              float beta, float* C, int ldc) override
    {
        checkCublas(cublasSgemm(m_cublas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K,
                                &alpha, B, ldb, A, lda, &beta, C, ldc),
                    "cublasSgemm");
    }
    void gemmBf16(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                  int ldb, float beta, float* C, int ldc) override
    {
        // fp32 in and out, bf16 tensor-core products with fp32 sums.
        checkCublas(cublasGemmEx(m_cublas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K,
                                 &alpha, B, CUDA_R_32F, ldb, A, CUDA_R_32F, lda, &beta, C, CUDA_R_32F, ldc,
                                 CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_GEMM_DEFAULT),
                    "cublasGemmEx");
    }
    void gemmBatched(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, int64_t sA,
                     const float* B, int ldb, int64_t sB, float beta, float* C, int ldc, int64_t sC, int batch) override
    {
        checkCublas(cublasSgemmStridedBatched(m_cublas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                              N, M, K, &alpha, B, ldb, sB, A, lda, sA, &beta, C, ldc, sC, batch),
                    "cublasSgemmStridedBatched");
    }
    void synchronize() override { throwIfCudaError(cudaStreamSynchronize(m_stream), "cudaStreamSynchronize"); }
    void* stream() override { return m_stream; }

private:
    std::string m_name;
    cudaStream_t m_stream = nullptr;
    cublasHandle_t m_cublas = nullptr;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend() { return std::make_unique<CudaBackend>(); }

std::string cudaUnavailableReason()
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess)
        return cudaGetErrorString(e);
    if (n == 0)
        return "no CUDA device found";
    return "";
}

bool cudaAvailable() { return cudaUnavailableReason().empty(); }

}  // namespace wt::kernels
