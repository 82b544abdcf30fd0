// The CPU backend's fast paths of the row ops: vectorized loops (vecmath.h's exp; compiled for
// AVX2 and for baseline x86-64, one chosen at run time) over a range of rows, run on the
// backend's thread pool by launch.h. The functors of opsmath.h call them from a host-only
// cpuRows(r0, r1) (or cpuRange(i0, i1) for elementwise ops); the CUDA kernels keep the
// functors' own math. Plain C++17 declarations: nvcc-compiled op sources include this header.
//
// Results depend only on the row (each row is reduced by one thread in a fixed lane order),
// so any thread count gives the same bits; the AVX2 and the baseline build give the same bits
// too (the lanes are 16 floats in both, and no FMA contraction).
#pragma once

#include <cstdint>
#include <functional>

namespace wt::kernels::cpu {

// Process-wide switches, for benchmarks and tests that compare in one process: the plain
// functor loops (vectorized false) against the fast paths, and the thread count of the pool
// (default: OpenBLAS's thread count, so row ops between GEMMs use the cores the GEMMs use;
// WHERETIME_CPU_THREADS overrides it). Not to be changed while a step runs.
void setVectorized(bool on);
bool vectorized();
void setThreads(int n);   // n <= 0: the default
int threads();

// body(lo, hi) over chunks of [0, count) on the pool (inline when count < 2 * minPerChunk).
void parallelFor(int64_t count, int64_t minPerChunk, const std::function<void(int64_t, int64_t)>& body);

// Rows [r0, r1) of the row ops (opsmath.h gives each one's definition).
void logSoftmaxForwardRows(const float* x, float* y, int64_t n, int64_t ldx, int64_t ldy, int64_t r0, int64_t r1);
void logSoftmaxBackwardRows(const float* y, const float* dy, float* dx, int64_t n, int64_t ld, int64_t r0, int64_t r1);
void fusedLogSoftmaxLossRows(float* x, int64_t n, int64_t ld, const int32_t* target, float scale, float* loss,
                             const int32_t* lossRow, int64_t r0, int64_t r1);
// Attention softmax over rows of S scores times scale; causal: row r sees keys 0..r % S.
void softmaxRows(const float* x, float* p, int64_t S, float scale, bool causal, int64_t r0, int64_t r1);
void softmaxBackwardRows(const float* p, const float* dp, float* ds, int64_t S, float scale, int64_t r0, int64_t r1);
void layerNormForwardRows(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                          int64_t C, float eps, int64_t r0, int64_t r1);
void layerNormBackwardRows(const float* x, const float* gamma, const float* dy, const float* mean, const float* rstd,
                           float* dx, int64_t C, bool accumulate, int64_t r0, int64_t r1);
// Elementwise ranges [i0, i1).
void gluForwardRange(const float* h, float* out, int64_t C, int64_t i0, int64_t i1);
void gluBackwardRange(const float* h, const float* dout, float* dh, int64_t C, int64_t i0, int64_t i1);
void addRange(const float* a, const float* b, float* y, int64_t i0, int64_t i1);
void copyRange(const float* a, float* y, int64_t i0, int64_t i1);
void biasAddRange(float* y, const float* bias, int64_t n, int64_t i0, int64_t i1);
void im2colRange(const float* x, float* col, int64_t S, int64_t C, int64_t K, int64_t i0, int64_t i1);
void col2imRange(const float* dcol, float* dx, int64_t S, int64_t C, int64_t K, bool accumulate, int64_t i0, int64_t i1);
// Column reductions over columns [j0, j1) of a row-major [rows, C] matrix, read row by row
// (the functors' own loop walks each column down the matrix); the same order of additions.
void columnSumColumns(const float* y, float* out, int64_t rows, int64_t C, int64_t j0, int64_t j1);
void layerNormParamGradColumns(const float* x, const float* dy, const float* mean, const float* rstd, float* dgamma,
                               float* dbeta, int64_t rows, int64_t C, int64_t j0, int64_t j1);
void geluForwardRange(const float* x, float* y, int64_t i0, int64_t i1);
void geluBackwardRange(const float* x, const float* dy, float* dx, int64_t i0, int64_t i1);
// fn::HeadsPermute over head-major indices [i0, i1): runs of dh floats are contiguous on both sides.
void headsPermuteRange(const float* src, float* dst, int64_t B, int64_t S, int64_t P, int64_t H, int64_t dh,
                       bool toHeads, int64_t i0, int64_t i1);
// Row gathers and scatters: dst[r, :] = src[idx[r], :] (selectRows), dst[idx[r], :] += src[r, :]
// (addRows, idx unique), table[tok[t], :] += alpha * g[t, :] (embedding SGD: in index order,
// the caller runs it on one thread since tokens repeat), over flat element ranges [i0, i1).
void selectRowsRange(const float* src, const int32_t* idx, float* dst, int64_t d, int64_t i0, int64_t i1);
void addRowsRange(const float* src, const int32_t* idx, float* dst, int64_t d, int64_t i0, int64_t i1);
// out[t, c] = table[tok[t], c] + pos[t % S, c] (BERT's embedding with positions) and its
// position gradient dpos[s, c] = sum over b of dOut[b S + s, c], b in order.
void embedPosForwardRange(const int32_t* tok, const float* table, const float* pos, float* out, int64_t d, int64_t S,
                          int64_t i0, int64_t i1);
void posGradRange(const float* dOut, float* dpos, int64_t d, int64_t S, int64_t B, int64_t i0, int64_t i1);
void embedSgdRange(const int32_t* tok, const float* g, float* table, int64_t d, float alpha, int64_t i0, int64_t i1);
// Sum of x[i]^2 over [i0, i1) in double (16 lanes, fixed order).
double sumSquaresRange(const float* x, int64_t i0, int64_t i1);
// y[i] = vexp(x[i]) (bench_roofline's exp throughput: the exp the row kernels run).
void expRange(const float* x, float* y, int64_t n);
// y[i] = vexp(x[i]) for x[i] <= 0 or NaN (anything else: undefined), by the 8-lane exp the row
// kernels use on shifted scores (x - max); the same bits as vexp there (tst_cpurows).
void expNonPositiveRange(const float* x, float* y, int64_t n);
// y[i] = x[i] * s with ordinary stores (calibrate's copy bandwidth: the row kernels' kind of
// traffic, a read stream and a written one; s keeps the compiler from making it a memcpy).
void scaleCopyRange(const float* x, float* y, float s, int64_t n);
void sgdRange(float* w, const float* g, float* v, float lr, float mu, float scale, int64_t i0, int64_t i1);

}  // namespace wt::kernels::cpu
