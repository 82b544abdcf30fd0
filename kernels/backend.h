// The device abstraction under the op runtime: memory, copies and matrix products.
// CpuBackend uses OpenBLAS; CudaBackend (only in CUDA builds) uses cuBLAS on one stream.
// Elementwise and row kernels are not here: they are templates in launch.h that run the same
// host+device functors as a CPU loop or a CUDA kernel, chosen by kind().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace wt::kernels {

enum class BackendKind { Cpu, Cuda };

// Any failure of the device runtime (no GPU, out of memory, failed launch), with a clear message.
struct DeviceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual BackendKind kind() const = 0;
    virtual std::string deviceName() const = 0;

    virtual void* allocate(size_t bytes) = 0;   // zero-filled
    virtual void release(void* p) noexcept = 0;
    virtual void upload(void* dst, const void* src, size_t bytes) = 0;     // host -> device
    virtual void download(void* dst, const void* src, size_t bytes) = 0;   // device -> host, waits
    virtual void zero(void* p, size_t bytes) = 0;

    // Row-major C[M,N] = alpha * op(A) op(B) + beta * C, op(A) is [M,K], op(B) is [K,N].
    virtual void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
                      const float* B, int ldb, float beta, float* C, int ldc) = 0;
    // The same with A and B rounded to bfloat16 and fp32 sums (CPU: bf16gemm.h; CUDA: cuBLAS's
    // CUBLAS_COMPUTE_32F_FAST_16BF, the tensor cores); the softmax variant fused_bf16 only.
    virtual void gemmBf16(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
                          const float* B, int ldb, float beta, float* C, int ldc) = 0;
    // The same over `batch` matrices at fixed element strides.
    virtual void gemmBatched(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
                             int64_t strideA, const float* B, int ldb, int64_t strideB, float beta, float* C, int ldc,
                             int64_t strideC, int batch) = 0;
    virtual void synchronize() = 0;
    virtual void* stream() { return nullptr; }   // cudaStream_t on CUDA
};

std::unique_ptr<Backend> makeCpuBackend();
// Throws DeviceError when the build has no CUDA or no usable GPU is present.
std::unique_ptr<Backend> makeCudaBackend();
// True when this build has CUDA and a driver with at least one GPU answers; never throws.
bool cudaAvailable();
// Why cudaAvailable() is false ("" when it is true).
std::string cudaUnavailableReason();

}  // namespace wt::kernels
