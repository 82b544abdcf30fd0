// Generic launchers for the shared host+device functors of opsmath.h. Included only by the op
// sources (ops.cpp, softmax.cpp), which CMake compiles with nvcc in CUDA builds: a functor
// then runs as a CUDA kernel on the CUDA backend and as a plain loop on the CPU backend.
//
//   forEach(rt, launch, dims, n, f)   f(i) for i in [0, n)
//   rowOp(rt, launch, dims, rows, op) per row: reduce op.accumulate over op.cols(row) columns,
//                                     op.finish(row, acc) once, then op.map(row, col, acc) per column
//   bucketize(rt, launch, dims, n, nb, bucketOf, perm, offsets)  stable counting sort of
//                                     [0,n) by bucketOf(i) in [0,nb): perm (n) and offsets (nb+1)
#pragma once

#include "kernels/hd.h"
#include "kernels/runtime.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#include <string>
#include <vector>

namespace wt::kernels {

#if defined(__CUDACC__)
void throwIfCudaError(cudaError_t e, const char* what);   // cudabackend.cu

template <class F>
__global__ void forEachKernel(F f, int64_t n)
{
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        f(i);
}

constexpr int kRowThreads = 256;

template <class R>
__global__ void rowKernel(R op, int64_t rows)
{
    using Acc = typename R::Acc;
    __shared__ alignas(16) unsigned char raw[kRowThreads * sizeof(Acc)];
    Acc* sh = reinterpret_cast<Acc*>(raw);
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        int64_t n = op.cols(row);
        Acc acc = op.init();
        for (int64_t c = threadIdx.x; c < n; c += blockDim.x)
            op.accumulate(acc, row, c);
        sh[threadIdx.x] = acc;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (int(threadIdx.x) < s)
                sh[threadIdx.x] = R::combine(sh[threadIdx.x], sh[threadIdx.x + s]);
            __syncthreads();
        }
        acc = sh[0];
        if (threadIdx.x == 0)
            op.finish(row, acc);
        __syncthreads();
        for (int64_t c = threadIdx.x; c < n; c += blockDim.x)
            op.map(row, c, acc);
        __syncthreads();
    }
}

template <class B>
__global__ void bucketizeKernel(B bucketOf, int64_t n, int nb, int32_t* perm, int32_t* offsets)
{
    constexpr int kMaxBuckets = 16;
    __shared__ int32_t counts[kRowThreads][kMaxBuckets];
    int t = threadIdx.x;
    int64_t chunk = (n + blockDim.x - 1) / blockDim.x;
    int64_t lo = t * chunk, hi = lo + chunk < n ? lo + chunk : n;
    for (int b = 0; b < nb; ++b)
        counts[t][b] = 0;
    for (int64_t i = lo; i < hi; ++i)
        counts[t][bucketOf(i)]++;
    __syncthreads();
    if (t == 0) {   // exclusive scan, bucket-major then chunk order: stable
        int32_t run = 0;
        for (int b = 0; b < nb; ++b) {
            offsets[b] = run;
            for (int u = 0; u < int(blockDim.x); ++u) {
                int32_t c = counts[u][b];
                counts[u][b] = run;
                run += c;
            }
        }
        offsets[nb] = run;
    }
    __syncthreads();
    for (int64_t i = lo; i < hi; ++i)
        perm[counts[t][bucketOf(i)]++] = int32_t(i);
}
#endif

template <class F>
void forEach(Runtime& rt, const OpLaunch& launch, const Dims& dims, int64_t n, F f)
{
    if (n <= 0)
        return;
    if (rt.begin(launch, dims)) {
#if defined(__CUDACC__)
        if (rt.onDevice()) {
            int64_t blocks = (n + 255) / 256;
            if (blocks > 65535 * 8)
                blocks = 65535 * 8;
            forEachKernel<<<unsigned(blocks), 256, 0, static_cast<cudaStream_t>(rt.backend().stream())>>>(f, n);
            throwIfCudaError(cudaGetLastError(), std::string(launch.name).c_str());
        } else
#endif
        {
            for (int64_t i = 0; i < n; ++i)
                f(i);
        }
    }
    rt.end();
}

template <class R>
void rowOp(Runtime& rt, const OpLaunch& launch, const Dims& dims, int64_t rows, R op)
{
    if (rows <= 0)
        return;
    if (rt.begin(launch, dims)) {
#if defined(__CUDACC__)
        if (rt.onDevice()) {
            int64_t blocks = rows < 65535 * 4 ? rows : 65535 * 4;
            rowKernel<<<unsigned(blocks), kRowThreads, 0, static_cast<cudaStream_t>(rt.backend().stream())>>>(op, rows);
            throwIfCudaError(cudaGetLastError(), std::string(launch.name).c_str());
        } else
#endif
        {
            for (int64_t row = 0; row < rows; ++row) {
                int64_t n = op.cols(row);
                typename R::Acc acc = op.init();
                for (int64_t c = 0; c < n; ++c)
                    op.accumulate(acc, row, c);
                op.finish(row, acc);
                for (int64_t c = 0; c < n; ++c)
                    op.map(row, c, acc);
            }
        }
    }
    rt.end();
}

// perm and offsets are device buffers (int32).
template <class B>
void bucketize(Runtime& rt, const OpLaunch& launch, const Dims& dims, int64_t n, int nb, B bucketOf, int32_t* perm,
               int32_t* offsets)
{
    if (rt.begin(launch, dims)) {
#if defined(__CUDACC__)
        if (rt.onDevice()) {
            bucketizeKernel<<<1, kRowThreads, 0, static_cast<cudaStream_t>(rt.backend().stream())>>>(bucketOf, n, nb,
                                                                                                    perm, offsets);
            throwIfCudaError(cudaGetLastError(), std::string(launch.name).c_str());
        } else
#endif
        {
            std::vector<int32_t> start(size_t(nb) + 1, 0);
            for (int64_t i = 0; i < n; ++i)
                start[size_t(bucketOf(i)) + 1]++;
            for (int b = 0; b < nb; ++b)
                start[size_t(b) + 1] += start[size_t(b)];
            for (int b = 0; b <= nb; ++b)
                offsets[b] = start[size_t(b)];
            for (int64_t i = 0; i < n; ++i)
                perm[start[size_t(bucketOf(i))]++] = int32_t(i);
        }
    }
    rt.end();
}

}  // namespace wt::kernels
