// Generic launchers for the shared host+device functors of opsmath.h. Included only by the op
// sources (attention.cpp, layers.cpp, bert.cpp, softmax.cpp), which CMake compiles with nvcc in
// CUDA builds: a functor then runs as a CUDA kernel on the CUDA backend and as a plain loop on
// the CPU backend.
//
//   forEach(rt, launch, dims, n, f)   f(i) for i in [0, n)
//   rowOp(rt, launch, dims, rows, op) per row: reduce op.accumulate over op.cols(row) columns,
//                                     op.finish(row, acc) once, then op.map(row, col, acc) per column
//                                     (finish must not read what map writes: see rowMapKernel)
//   colReduce(rt, launch, dims, columns, rows, op)  per column j of a [rows, columns] matrix:
//                                     reduce op.accumulate(acc, j, i) over rows i, op.finish(j, acc)
//
// Every launcher is one OpLaunch (observer.h) issuing our own kernels: one kernel, or two for a
// split row op or a column reduction in parts (partials in Runtime::scratch(), then a pass
// that combines them). All kernels of a launch carry its op name in the traces.
//   reduceAdd(rt, launch, dims, n, f, out)  out[0] += sum of f(i) for i in [0, n) (device scalar)
//   bucketize(rt, launch, dims, n, nb, bucketOf, perm, offsets)  stable counting sort of
//                                     [0,n) by bucketOf(i) in [0,nb): perm (n) and offsets (nb+1)
#pragma once

#include "kernels/cpurows.h"
#include "kernels/hd.h"
#include "kernels/runtime.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace wt::kernels {

// The launch of an elementwise or row op over n float elements: flopsPer FLOPs and readPer /
// writePer floats read / written per element (the estimate every op source gives its ops).
inline OpLaunch ew(std::string_view name, double n, double flopsPer, double readPer, double writePer)
{
    double rd = 4.0 * n * readPer, wr = 4.0 * n * writePer;
    return {name, n * flopsPer, rd + wr, rd, wr};
}

// CPU loops: split over the backend's thread pool (cpurows.h) by rows or elements, never
// below kCpuMinWork elements per chunk (waking a worker costs a few microseconds). A functor's
// cpuRows / cpuRange (opsmath.h) replaces the plain loop while cpu::vectorized() is on.
constexpr int64_t kCpuMinWork = 32768;
namespace detail {
template <class T, class = void>
struct HasCpuRows : std::false_type {};
template <class T>
struct HasCpuRows<T, std::void_t<decltype(std::declval<const T&>().cpuRows(int64_t(), int64_t()))>> : std::true_type {};
template <class T, class = void>
struct HasCpuRange : std::false_type {};
template <class T>
struct HasCpuRange<T, std::void_t<decltype(std::declval<const T&>().cpuRange(int64_t(), int64_t()))>>
    : std::true_type {};
template <class T, class = void>
struct HasCpuColumns : std::false_type {};
template <class T>
struct HasCpuColumns<T, std::void_t<decltype(std::declval<const T&>().cpuColumns(int64_t(), int64_t()))>>
    : std::true_type {};
template <class T, class = void>
struct HasCpuSum : std::false_type {};
template <class T>
struct HasCpuSum<T, std::void_t<decltype(std::declval<const T&>().cpuSum(int64_t(), int64_t()))>> : std::true_type {};
template <class T, class = void>
struct CpuSerial : std::false_type {};
template <class T>
struct CpuSerial<T, std::enable_if_t<T::kCpuSerial>> : std::true_type {};
}  // namespace detail

// A launch whose CPU loop has no vectorized path (the functor called once per element, row or
// column: no cpuRange / cpuRows / cpuColumns / cpuSum, or cpu::vectorized() off) carries the size
// "scalar=1": the predictor prices such loops at the calibration's scalar-loop rate
// (analysis/costmodel.h, DeviceSpec::scalarFlops), a feature of how the op runs, not of its name.
// Not on the CUDA backend, where every functor is one thread per element.
template <bool Vectorized>
Dims loopDims(const Runtime& rt, const Dims& dims)
{
    if (rt.onDevice() || (Vectorized && cpu::vectorized()))
        return dims;
    return dims.with("scalar", 1);
}

#if defined(__CUDACC__)
void throwIfCudaError(cudaError_t e, const char* what);   // cudabackend.cu

template <class F>
__global__ void forEachKernel(F f, int64_t n)
{
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        f(i);
}

constexpr int kRowThreads = 256;
// A row op over few long rows (the tail logits: tens to hundreds of rows of 10^4-10^5
// columns) splits each row over several blocks: one block per row would leave most SMs idle.
constexpr int64_t kSplitMinCols = 8192;     // rows at least this long may be split
constexpr int64_t kSplitMaxRows = 512;      // more rows than this fill the GPU on their own
constexpr int64_t kSplitColsPerBlock = 4096;
constexpr int64_t kMaxPartials = 8192;      // partial results of one split launch (scratch)
// Column reductions: tiles of 32 columns x 8 lanes of rows, coalesced along the columns.
constexpr int kColTile = 32;
constexpr int kColLanes = kRowThreads / kColTile;
constexpr int64_t kColTargetBlocks = 512;

// Reduces acc over the block (shared memory sh of blockDim.x entries); every thread gets it.
template <class R>
__device__ typename R::Acc blockReduce(typename R::Acc acc, typename R::Acc* sh)
{
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (int(threadIdx.x) < s)
            sh[threadIdx.x] = R::combine(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    acc = sh[0];
    __syncthreads();
    return acc;
}

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
        acc = blockReduce<R>(acc, sh);
        if (threadIdx.x == 0)
            op.finish(row, acc);
        __syncthreads();
        for (int64_t c = threadIdx.x; c < n; c += blockDim.x)
            op.map(row, c, acc);
    }
}

// Split rows, pass 1: block (row, s) reduces its chunk of the row into partial[block].
template <class R>
__global__ void rowPartialKernel(R op, int splits, typename R::Acc* partial)
{
    using Acc = typename R::Acc;
    __shared__ alignas(16) unsigned char raw[kRowThreads * sizeof(Acc)];
    Acc* sh = reinterpret_cast<Acc*>(raw);
    const int64_t row = blockIdx.x / splits, s = blockIdx.x % splits;
    const int64_t n = op.cols(row), chunk = (n + splits - 1) / splits;
    const int64_t lo = s * chunk, hi = lo + chunk < n ? lo + chunk : n;
    Acc acc = op.init();
    for (int64_t c = lo + threadIdx.x; c < hi; c += blockDim.x)
        op.accumulate(acc, row, c);
    acc = blockReduce<R>(acc, sh);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = acc;
}

// Split rows, pass 2: every block combines its row's partials (in order: the same result in
// every block), block s = 0 finishes the row, and each block maps its chunk. finish() must
// not read what map() writes: other blocks of the row may already be mapping.
template <class R>
__global__ void rowMapKernel(R op, int splits, const typename R::Acc* partial)
{
    using Acc = typename R::Acc;
    __shared__ alignas(16) unsigned char raw[sizeof(Acc)];
    Acc* total = reinterpret_cast<Acc*>(raw);
    const int64_t row = blockIdx.x / splits, s = blockIdx.x % splits;
    if (threadIdx.x == 0) {
        Acc a = partial[row * splits];
        for (int k = 1; k < splits; ++k)
            a = R::combine(a, partial[row * splits + k]);
        *total = a;
        if (s == 0)
            op.finish(row, a);
    }
    __syncthreads();
    const Acc acc = *total;
    const int64_t n = op.cols(row), chunk = (n + splits - 1) / splits;
    const int64_t lo = s * chunk, hi = lo + chunk < n ? lo + chunk : n;
    for (int64_t c = lo + threadIdx.x; c < hi; c += blockDim.x)
        op.map(row, c, acc);
}

// Column reduction, pass 1: block (tile, part) sums rows [part's range] of 32 columns; thread
// (x, y) reads column tile*32 + x of rows y, y + 8, ...: a warp reads 32 consecutive floats.
// With one part the result is final (finish); otherwise partial[part * columns + j].
template <class R>
__global__ void colPartialKernel(R op, int64_t columns, int64_t rows, int parts, typename R::Acc* partial)
{
    using Acc = typename R::Acc;
    __shared__ alignas(16) unsigned char raw[kRowThreads * sizeof(Acc)];
    Acc* sh = reinterpret_cast<Acc*>(raw);
    const int x = threadIdx.x % kColTile, y = threadIdx.x / kColTile;
    const int64_t j = int64_t(blockIdx.x) * kColTile + x;
    const int64_t chunk = (rows + parts - 1) / parts, lo = int64_t(blockIdx.y) * chunk;
    const int64_t hi = lo + chunk < rows ? lo + chunk : rows;
    Acc acc = op.init();
    if (j < columns)
        for (int64_t i = lo + y; i < hi; i += kColLanes)
            op.accumulate(acc, j, i);
    sh[threadIdx.x] = acc;
    __syncthreads();
    if (y == 0 && j < columns) {
        for (int k = 1; k < kColLanes; ++k)
            acc = R::combine(acc, sh[k * kColTile + x]);
        if (parts == 1)
            op.finish(j, acc);
        else
            partial[int64_t(blockIdx.y) * columns + j] = acc;
    }
}

// Column reduction, pass 2: combines the parts of each column (in order) and finishes it.
template <class R>
__global__ void colFinishKernel(R op, int64_t columns, int parts, const typename R::Acc* partial)
{
    const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= columns)
        return;
    typename R::Acc a = partial[j];
    for (int p = 1; p < parts; ++p)
        a = R::combine(a, partial[int64_t(p) * columns + j]);
    op.finish(j, a);
}

// Grid-stride partial sums, one tree per block, one atomic add per block.
template <class F>
__global__ void reduceAddKernel(F f, int64_t n, float* out)
{
    __shared__ float sh[kRowThreads];
    float acc = 0.f;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        acc += f(i);
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (int(threadIdx.x) < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, sh[0]);
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
    if (rt.begin(launch, loopDims<detail::HasCpuRange<F>::value>(rt, dims))) {
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
            if constexpr (detail::CpuSerial<F>::value) {
                bool done = false;
                if constexpr (detail::HasCpuRange<F>::value) {
                    if (cpu::vectorized()) {
                        f.cpuRange(0, n);   // one thread, in index order
                        done = true;
                    }
                }
                if (!done)
                    for (int64_t i = 0; i < n; ++i)
                        f(i);
            } else {
                cpu::parallelFor(n, kCpuMinWork, [&](int64_t lo, int64_t hi) {
                    if constexpr (detail::HasCpuRange<F>::value) {
                        if (cpu::vectorized()) {
                            f.cpuRange(lo, hi);
                            return;
                        }
                    }
                    for (int64_t i = lo; i < hi; ++i)
                        f(i);
                });
            }
        }
    }
    rt.end();
}

template <class R>
void rowOp(Runtime& rt, const OpLaunch& launch, const Dims& dims, int64_t rows, R op)
{
    if (rows <= 0)
        return;
    if (rt.begin(launch, loopDims<detail::HasCpuRows<R>::value>(rt, dims))) {
#if defined(__CUDACC__)
        if (rt.onDevice()) {
            auto stream = static_cast<cudaStream_t>(rt.backend().stream());
            const int64_t cols = op.cols(0);   // every row op has rows of one length
            int64_t splits = 1;
            if (rows <= kSplitMaxRows && cols >= kSplitMinCols) {
                splits = (cols + kSplitColsPerBlock - 1) / kSplitColsPerBlock;
                splits = std::min<int64_t>(splits, kMaxPartials / rows);
            }
            if (splits > 1) {
                auto* partial = static_cast<typename R::Acc*>(rt.scratch());
                static_assert(sizeof(typename R::Acc) * kMaxPartials <= Runtime::kScratchBytes);
                const unsigned blocks = unsigned(rows * splits);
                rowPartialKernel<<<blocks, kRowThreads, 0, stream>>>(op, int(splits), partial);
                throwIfCudaError(cudaGetLastError(), std::string(launch.name).c_str());
                rowMapKernel<<<blocks, kRowThreads, 0, stream>>>(op, int(splits), partial);
            } else {
                int64_t blocks = rows < 65535 * 4 ? rows : 65535 * 4;
                rowKernel<<<unsigned(blocks), kRowThreads, 0, stream>>>(op, rows);
            }
            throwIfCudaError(cudaGetLastError(), std::string(launch.name).c_str());
        } else
#endif
        {
            // Rows are independent (the CUDA kernels run them in parallel blocks too).
            const int64_t minRows = std::max<int64_t>(1, kCpuMinWork / std::max<int64_t>(1, op.cols(0)));
            cpu::parallelFor(rows, minRows, [&](int64_t lo, int64_t hi) {
                if constexpr (detail::HasCpuRows<R>::value) {
                    if (cpu::vectorized()) {
                        op.cpuRows(lo, hi);
                        return;
                    }
                }
                for (int64_t row = lo; row < hi; ++row) {
                    int64_t n = op.cols(row);
                    typename R::Acc acc = op.init();
                    for (int64_t c = 0; c < n; ++c)
                        op.accumulate(acc, row, c);
                    op.finish(row, acc);
                    for (int64_t c = 0; c < n; ++c)
                        op.map(row, c, acc);
                }
            });
        }
    }
    rt.end();
}

// Column reduction of a row-major [rows, columns] matrix: op.accumulate(acc, j, i) adds
// element (i, j), op.finish(j, acc) once per column (op.map is not called). The CPU loop is
// rowOp's over the transposed view; on the GPU the reads are coalesced along the columns.
template <class R>
void colReduce(Runtime& rt, const OpLaunch& launch, const Dims& dims, int64_t columns, int64_t rows, R op)
{
    if (columns <= 0)
        return;
    if (rt.begin(launch, loopDims<detail::HasCpuColumns<R>::value>(rt, dims))) {
#if defined(__CUDACC__)
        if (rt.onDevice()) {
            auto stream = static_cast<cudaStream_t>(rt.backend().stream());
            const int64_t tiles = (columns + kColTile - 1) / kColTile;
            int64_t parts = (kColTargetBlocks + tiles - 1) / tiles;
            parts = std::min<int64_t>(parts, (rows + 63) / 64);   // at least 8 rows per thread
            parts = std::min<int64_t>(parts, int64_t(Runtime::kScratchBytes / sizeof(typename R::Acc)) / columns);
            parts = std::max<int64_t>(parts, 1);
            auto* partial = static_cast<typename R::Acc*>(parts > 1 ? rt.scratch() : nullptr);
            colPartialKernel<<<dim3(unsigned(tiles), unsigned(parts)), kRowThreads, 0, stream>>>(op, columns, rows,
                                                                                              int(parts), partial);
            throwIfCudaError(cudaGetLastError(), std::string(launch.name).c_str());
            if (parts > 1) {
                colFinishKernel<<<unsigned((columns + kRowThreads - 1) / kRowThreads), kRowThreads, 0, stream>>>(
                    op, columns, int(parts), partial);
                throwIfCudaError(cudaGetLastError(), std::string(launch.name).c_str());
            }
        } else
#endif
        {
            // Wide chunks: each one streams every row (128 columns = 512 bytes of a row at least).
            const int64_t minColumns = std::max<int64_t>(128, kCpuMinWork / std::max<int64_t>(1, rows));
            cpu::parallelFor(columns, minColumns, [&](int64_t lo, int64_t hi) {
                if constexpr (detail::HasCpuColumns<R>::value) {
                    if (cpu::vectorized()) {
                        op.cpuColumns(lo, hi);
                        return;
                    }
                }
                for (int64_t j = lo; j < hi; ++j) {
                    typename R::Acc acc = op.init();
                    for (int64_t i = 0; i < rows; ++i)
                        op.accumulate(acc, j, i);
                    op.finish(j, acc);
                }
            });
        }
    }
    rt.end();
}

// out: a device scalar that the sum is added to.
template <class F>
void reduceAdd(Runtime& rt, const OpLaunch& launch, const Dims& dims, int64_t n, F f, float* out)
{
    if (n <= 0)
        return;
    if (rt.begin(launch, loopDims<detail::HasCpuSum<F>::value>(rt, dims))) {
#if defined(__CUDACC__)
        if (rt.onDevice()) {
            int64_t blocks = (n + kRowThreads - 1) / kRowThreads;
            if (blocks > 1024)
                blocks = 1024;
            reduceAddKernel<<<unsigned(blocks), kRowThreads, 0, static_cast<cudaStream_t>(rt.backend().stream())>>>(
                f, n, out);
            throwIfCudaError(cudaGetLastError(), std::string(launch.name).c_str());
        } else
#endif
        {
            double acc = 0;
            bool done = false;
            if constexpr (detail::HasCpuSum<F>::value) {
                if (cpu::vectorized()) {
                    // Fixed blocks summed in order: the same result for any thread count.
                    constexpr int64_t kBlock = 16384;
                    const int64_t blocks = (n + kBlock - 1) / kBlock;
                    static thread_local std::vector<double> part;   // reused: no allocation per step
                    part.assign(size_t(blocks), 0.0);
                    double* partial = part.data();   // this thread's vector, not the workers' own
                    cpu::parallelFor(blocks, std::max<int64_t>(1, kCpuMinWork / kBlock), [&](int64_t lo, int64_t hi) {
                        for (int64_t b = lo; b < hi; ++b)
                            partial[b] = f.cpuSum(b * kBlock, std::min(n, (b + 1) * kBlock));
                    });
                    for (double p : part)
                        acc += p;
                    done = true;
                }
            }
            if (!done)
                for (int64_t i = 0; i < n; ++i)
                    acc += double(f(i));
            out[0] += float(acc);
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
