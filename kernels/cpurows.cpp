// Vectorized CPU row kernels (cpurows.h). Every reduction keeps 16 float lanes (two AVX2
// registers, four SSE ones) summed in a fixed order at the end, and every exp is vexp over a
// block of up to kBlock elements held in L1, so GCC vectorizes the loops (-O3 on this file,
// CMakeLists.txt) in both the AVX2 and the baseline clone. A row is read from memory once
// for its reductions (blocked online log-sum-exp: the block's max, then its exps) and once
// more for the write pass, which finds it in L2 for the rows of these workloads.
#include "kernels/cpurows.h"

#include "kernels/threadpool.h"
#include "kernels/vecmath.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
// One copy for AVX2 machines, one for any x86-64; the loader picks by CPUID (ifunc).
#define WT_VEC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define WT_VEC_CLONES
#endif

namespace wt::kernels::cpu {

namespace {

constexpr int kLanes = 16;
constexpr int64_t kBlock = 512;   // floats per block of the online log-sum-exp (2 KiB: in L1 from its max to its exps)
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::atomic<bool> g_vectorized{true};
std::mutex g_poolMutex;
std::unique_ptr<ThreadPool> g_pool;
int g_threadsWanted = 0;   // 0: default

int defaultThreads()
{
    if (const char* env = std::getenv("WHERETIME_CPU_THREADS")) {
        int n = std::atoi(env);
        if (n > 0)
            return n;
    }
    int n = openblas_get_num_threads();
    return n > 0 ? n : 1;
}

ThreadPool& pool()
{
    std::lock_guard<std::mutex> lock(g_poolMutex);
    if (!g_pool)
        g_pool = std::make_unique<ThreadPool>(g_threadsWanted > 0 ? g_threadsWanted : defaultThreads());
    return *g_pool;
}

// Lane helpers: 16 float lanes as two GCC vectors of 8 (lowered to AVX2 or SSE registers by
// each clone, the same lanes and the same order in both), the tail into lanes 0.. in order.
// Forced inline: an out-of-line helper would be compiled for the baseline only.
#define WT_LANES_INLINE inline __attribute__((always_inline))
typedef float V8 __attribute__((vector_size(32)));

WT_LANES_INLINE V8 load8(const float* p)
{
    V8 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
WT_LANES_INLINE void toLanes(float* acc, V8 a, V8 b)
{
    std::memcpy(acc, &a, sizeof a);
    std::memcpy(acc + 8, &b, sizeof b);
}
WT_LANES_INLINE float combineSum(const float* acc)
{
    // Pairwise, fixed: the same in every build.
    float t[8];
    for (int l = 0; l < 8; ++l)
        t[l] = acc[l] + acc[l + 8];
    for (int l = 0; l < 4; ++l)
        t[l] = t[l] + t[l + 4];
    return (t[0] + t[2]) + (t[1] + t[3]);
}
typedef int32_t V8i __attribute__((vector_size(32)));
WT_LANES_INLINE V8 maxLanes(V8 a, V8 b) { return a > b ? a : b; }
WT_LANES_INLINE float combineMax(const float* acc)
{
    // A tree of lane-wise maxima, 4 steps deep: the scalar loop compiled to a chain of 15
    // scalar compares and conditional moves (vucomiss, cmov), each waiting on the last, once
    // per row. Max does not depend on the order: the value is the loop's (up to the sign of a
    // zero maximum, which no result depends on).
    V8 m = maxLanes(load8(acc), load8(acc + 8));
    m = maxLanes(m, __builtin_shuffle(m, V8i{4, 5, 6, 7, 0, 1, 2, 3}));
    m = maxLanes(m, __builtin_shuffle(m, V8i{2, 3, 0, 1, 6, 7, 4, 5}));
    m = maxLanes(m, __builtin_shuffle(m, V8i{1, 0, 3, 2, 5, 4, 7, 6}));
    return m[0];
}
WT_LANES_INLINE void addLanes(float* acc, const float* x, int64_t n)
{
    V8 a = load8(acc), b = load8(acc + 8);
    int64_t c = 0;
    for (; c + kLanes <= n; c += kLanes) {
        a += load8(x + c);
        b += load8(x + c + 8);
    }
    toLanes(acc, a, b);
    for (int l = 0; c < n; ++c, ++l)
        acc[l] += x[c];
}
WT_LANES_INLINE void addProductLanes(float* acc, const float* x, const float* y, int64_t n)
{
    V8 a = load8(acc), b = load8(acc + 8);
    int64_t c = 0;
    for (; c + kLanes <= n; c += kLanes) {
        a += load8(x + c) * load8(y + c);
        b += load8(x + c + 8) * load8(y + c + 8);
    }
    toLanes(acc, a, b);
    for (int l = 0; c < n; ++c, ++l)
        acc[l] += x[c] * y[c];
}
WT_LANES_INLINE float maxOf(const float* x, int64_t n, float scale)
{
    V8 a = V8{} + kNegInf, b = a;
    int64_t c = 0;
    for (; c + kLanes <= n; c += kLanes) {
        const V8 u = load8(x + c) * scale, v = load8(x + c + 8) * scale;
        a = u > a ? u : a;
        b = v > b ? v : b;
    }
    float acc[kLanes];
    toLanes(acc, a, b);
    for (int l = 0; c < n; ++c, ++l) {
        const float v = x[c] * scale;
        acc[l] = v > acc[l] ? v : acc[l];
    }
    return combineMax(acc);
}
WT_LANES_INLINE void store8(float* p, V8 v) { std::memcpy(p, &v, sizeof v); }
// vec::vexp on 8 lanes: the same operations in the same order, so each lane has vexp's bits
// (tst_cpurows checks expRange against vexp element by element). Written on the vector types
// because GCC vectorized the scalar call only in loops that store every exp: with it, a loop
// can sum (or scale) the exps in registers, without a pass over a buffer.
// kNonPositive: for arguments <= 0 or NaN only (x - max, the row kernels' shifted scores):
// no upper clamp or +inf case, and 2^k (k in [-126, 0]) in one factor. The same bits as vexp
// there: p 2^k1 is exact, so (p 2^k1) 2^k2 and p 2^k round the same product once
// (tst_cpurows nonPositiveExpHasTheScalarBits); 8 of vexp8's ~40 operations fewer.
// kBounded: for arguments in [-87.33, 87.33] (or NaN) only, which the caller clamped: no
// clamp and no special case (a NaN stays NaN through the polynomial), 2^k (|k| <= 126) in one
// factor; vexp's bits there, by the same argument.
template <bool kNonPositive = false, bool kBounded = false>
WT_LANES_INLINE V8 vexp8(V8 x)
{
    const V8 hi = V8{} + 88.72f, lo = V8{} + -87.33f;
    const V8 xc = kBounded ? x : kNonPositive ? (x < lo ? lo : x) : (x > hi ? hi : (x < lo ? lo : x));
    const V8 kf = (xc * 1.44269504088896341f + 12582912.f) - 12582912.f;
    const V8 r = (xc - kf * 0.693145751953125f) - kf * 1.428606765330187e-6f;
    V8 p = V8{} + 1.f / 720.f;
    p = p * r + 1.f / 120.f;
    p = p * r + 1.f / 24.f;
    p = p * r + 1.f / 6.f;
    p = p * r + 0.5f;
    p = p * r + 1.f;
    p = p * r + 1.f;
    const V8i k = __builtin_convertvector(kf, V8i);
    V8 y;
    if constexpr (kNonPositive || kBounded) {
        y = p * reinterpret_cast<V8>((k + 127) << 23);
        if constexpr (kBounded)
            return y;
    } else {
        const V8i k1 = k >> 1, k2 = k - k1;
        const V8 s1 = reinterpret_cast<V8>((k1 + 127) << 23), s2 = reinterpret_cast<V8>((k2 + 127) << 23);
        y = p * s1 * s2;
    }
    y = x < lo ? V8{} : y;
    if constexpr (!kNonPositive)
        y = x > hi ? V8{} + std::numeric_limits<float>::infinity() : y;
    return x != x ? x : y;
}

WT_LANES_INLINE void expShifted(const float* x, float scale, float shift, float* out, int64_t n)
{
    int64_t c = 0;
    for (; c + 8 <= n; c += 8)
        store8(out + c, vexp8(load8(x + c) * scale - shift));
    for (; c < n; ++c)
        out[c] = vec::vexp(x[c] * scale - shift);
}

// acc[lane] += vexp(scale * x[c] - shift) (out[c] = the exp too, when out is given): the
// exps summed as they are made, in addLanes' lanes and order. shift is at least every
// scale * x[c] (the running max of its callers), so the arguments are <= 0 (or NaN).
WT_LANES_INLINE void addExpLanes(float* acc, const float* x, float scale, float shift, float* out, int64_t n)
{
    V8 a = load8(acc), b = load8(acc + 8);
    int64_t c = 0;
    for (; c + kLanes <= n; c += kLanes) {
        const V8 e0 = vexp8<true>(load8(x + c) * scale - shift), e1 = vexp8<true>(load8(x + c + 8) * scale - shift);
        if (out) {
            store8(out + c, e0);
            store8(out + c + 8, e1);
        }
        a += e0;
        b += e1;
    }
    toLanes(acc, a, b);
    for (int l = 0; c < n; ++c, ++l) {
        const float e = vec::vexp(x[c] * scale - shift);
        if (out)
            out[c] = e;
        acc[l] += e;
    }
}

// Online log-sum-exp of scale * x[0..n) by blocks: lanes hold sums relative to the running max.
struct Lse {
    float max, sum;
    float value() const { return max + float(std::log(double(sum))); }
};
// One block of it: the running max m takes the block's, the lane sums are rescaled to it, then
// the block's exps are added (and written to `out` when set). Every row kernel's log-sum-exp
// goes through this, so theirs have the same bits. The exps go in steps of kLseStep (a
// multiple of the lanes: the same sums as one pass over the block), with between(c0, c1)
// after each step over columns [c0, c1) of the block: the log-softmax forward writes the
// previous row there, so its stores mix with the exps at a finer grain.
constexpr int64_t kLseStep = 128;
// Fetches the lines of x[c0 + kBlock, c1 + kBlock), clipped to `limit` floats from x (a row,
// or the row and the next one), a block ahead of the exps: the max pass of a block read from
// memory otherwise waits on its loads, with nothing to overlap them (no fault: a hint).
WT_LANES_INLINE void prefetchAhead(const float* x, int64_t c0, int64_t c1, int64_t limit)
{
    for (int64_t c = c0 + kBlock; c < std::min(limit, c1 + kBlock); c += kLanes)
        __builtin_prefetch(x + c);
}
static_assert(kLseStep % kLanes == 0 && kBlock % kLseStep == 0);
struct NoStep {
    void operator()(int64_t, int64_t) const {}
};
template <class Between = NoStep>
WT_LANES_INLINE void lseBlock(float* acc, float& m, const float* xb, int64_t len, float scale, float* out,
                              Between between = {})
{
    const float bm = maxOf(xb, len, scale);
    if (bm > m) {
        const float f = m == kNegInf ? 0.f : vec::vexp(m - bm);
        for (int l = 0; l < kLanes; ++l)
            acc[l] *= f;
        m = bm;
    }
    for (int64_t c = 0; c < len; c += kLseStep) {
        const int64_t step = std::min(kLseStep, len - c);
        if (m != kNegInf)   // else every value so far is -inf
            addExpLanes(acc, xb + c, scale, m, out ? out + c : nullptr, step);
        between(c, c + step);
    }
}
WT_LANES_INLINE Lse logSumExp(const float* x, int64_t n, float scale)
{
    float acc[kLanes] = {};
    float m = kNegInf;
    for (int64_t b = 0; b < n; b += kBlock)
        lseBlock(acc, m, x + b, std::min(kBlock, n - b), scale, nullptr);
    return {m, combineSum(acc)};
}

}  // namespace

void setVectorized(bool on) { g_vectorized = on; }
bool vectorized() { return g_vectorized; }

void setThreads(int n)
{
    std::lock_guard<std::mutex> lock(g_poolMutex);
    g_threadsWanted = n > 0 ? n : 0;
    g_pool.reset();
}

int threads() { return pool().threads(); }

void parallelFor(int64_t count, int64_t minPerChunk, const std::function<void(int64_t, int64_t)>& body)
{
    pool().parallelFor(count, minPerChunk, body);
}

WT_VEC_CLONES
void logSoftmaxForwardRows(const float* x, float* y, int64_t n, int64_t ldx, int64_t ldy, int64_t r0, int64_t r1)
{
    // logSumExp's blocks, with the previous row's write pass (y = x - lse, x from L2) done a
    // step (kLseStep) at a time between them, so that its stream of stores overlaps this row's
    // exps instead of following them (the same operations per element: the same bits), and
    // the next block's lines fetched (prefetchAhead). One thread, 1,024 x 10,002 out of cache:
    // 0.84-0.85x of the time of whole blocks of 512 without the fetch (0.91x without it).
    const float* px = nullptr;
    float* py = nullptr;
    float plse = 0.f;
    auto writeBlock = [&](int64_t b, int64_t len) {
        for (int64_t c = b; c < b + len; ++c)
            py[c] = px[c] - plse;
    };
    for (int64_t r = r0; r < r1; ++r) {
        const float* xr = x + r * ldx;
        float acc[kLanes] = {};
        float m = kNegInf;
        for (int64_t b = 0; b < n; b += kBlock) {
            const int64_t len = std::min(kBlock, n - b);
            lseBlock(acc, m, xr + b, len, 1.f, nullptr, [&](int64_t c0, int64_t c1) {
                prefetchAhead(xr, b + c0, b + c1, r + 1 < r1 ? ldx + n : n);
                if (px)
                    writeBlock(b + c0, c1 - c0);
            });
        }
        px = xr;
        py = y + r * ldy;
        plse = Lse{m, combineSum(acc)}.value();
    }
    if (px)
        writeBlock(0, n);
}

WT_VEC_CLONES
void logSoftmaxBackwardRows(const float* y, const float* dy, float* dx, int64_t n, int64_t ld, int64_t r0, int64_t r1)
{
    // Row r's write pass goes in steps of kLseStep with the next row's sum of dy done a step at
    // a time between them (the same lanes and order as one pass: the same bits), so that the
    // loads of dy's next row from memory overlap this row's exps instead of waiting alone.
    float acc[kLanes] = {};
    if (r0 < r1)
        addLanes(acc, dy + r0 * ld, n);
    float s = combineSum(acc);
    for (int64_t r = r0; r < r1; ++r) {
        const float* yr = y + r * ld;
        const float* dyr = dy + r * ld;
        float* dxr = dx + r * ld;
        const float* dyNext = r + 1 < r1 ? dy + (r + 1) * ld : nullptr;
        float accNext[kLanes] = {};
        // One pass: the exps stay in registers. dx may be dy (in place): each element is read
        // before it is written. y is a log-probability (<= 0: the forward's x - lse, lse >= the
        // row's max), so its exp is the non-positive one; a y > 0, which no log-softmax gives,
        // is read as 0 (NaN stays NaN).
        const V8 zero{};
        for (int64_t c0 = 0; c0 < n; c0 += kLseStep) {
            const int64_t c1 = std::min(n, c0 + kLseStep);
            int64_t c = c0;
            for (; c + 8 <= c1; c += 8) {
                const V8 yv = load8(yr + c);
                store8(dxr + c, load8(dyr + c) - vexp8<true>(yv > zero ? zero : yv) * s);
            }
            for (; c < c1; ++c)
                dxr[c] = dyr[c] - vec::vexp(yr[c] > 0.f ? 0.f : yr[c]) * s;
            if (dyNext)
                addLanes(accNext, dyNext + c0, c1 - c0);
        }
        s = combineSum(accNext);
    }
}

WT_VEC_CLONES
void fusedLogSoftmaxLossRows(float* x, int64_t n, int64_t ld, const int32_t* target, float scale, float* loss,
                             const int32_t* lossRow, int64_t r0, int64_t r1)
{
    // One exp per logit: the log-sum-exp pass writes exp(x - m) in place, m the running max
    // when its block was read, and the second pass scales each block by exp(m - lse) (<= 1).
    // Rows of more than kMaxBlocks blocks take two exps per logit (the second exp(x - lse)).
    constexpr int64_t kMaxBlocks = 256;
    float shift[kMaxBlocks];
    if (n <= kBlock) {
        // Rows of one block two at a time: the same operations per row as below, in the same
        // order (the same bits), but one row's serial chain (the max's tree, the sum's, the log,
        // the scale's exp, the target's exp) overlaps the other's exps instead of following
        // them: rows of 128 ran at 1.7-2.0x of the exp rate one after the other.
        for (; r0 + 2 <= r1; r0 += 2) {
            float* xr[2];
            int64_t t[2];
            float picked[2], m[2], lse[2];
            float acc[2][kLanes] = {};
            for (int q = 0; q < 2; ++q) {
                xr[q] = x + (r0 + q) * ld;
                t[q] = target[r0 + q];
                picked[q] = t[q] >= 0 && t[q] < n ? xr[q][t[q]] : 0.f;
                m[q] = kNegInf;
            }
            for (int q = 0; q < 2; ++q)
                lseBlock(acc[q], m[q], xr[q], n, 1.f, xr[q]);   // exp(x - m) in place
            for (int q = 0; q < 2; ++q)
                lse[q] = Lse{m[q], combineSum(acc[q])}.value();
            for (int q = 0; q < 2; ++q) {
                float* xb = xr[q];
                if (m[q] == kNegInf) {   // the row's logits are all -inf
                    for (int64_t c = 0; c < n; ++c)
                        xb[c] = vec::vexp(xb[c] - lse[q]) * scale;
                    continue;
                }
                const float f = vec::vexp(m[q] - lse[q]) * scale;
                for (int64_t c = 0; c < n; ++c)
                    xb[c] *= f;
            }
            for (int q = 0; q < 2; ++q) {   // in row order (rows may share a loss slot)
                const int64_t r = r0 + q;
                loss[lossRow ? lossRow[r] : r] += lse[q] - picked[q];
                if (t[q] >= 0 && t[q] < n)
                    xr[q][t[q]] = (vec::vexp(picked[q] - lse[q]) - 1.f) * scale;
            }
        }
    }
    for (int64_t r = r0; r < r1; ++r) {
        float* xr = x + r * ld;
        const int64_t t = target[r];
        const float picked = t >= 0 && t < n ? xr[t] : 0.f;
        float lse;
        if (n <= kMaxBlocks * kBlock) {
            float acc[kLanes] = {};
            float m = kNegInf;
            for (int64_t b = 0; b < n; b += kBlock) {
                lseBlock(acc, m, xr + b, std::min(kBlock, n - b), 1.f, xr + b,   // exp(x - m) in place
                         [&](int64_t c0, int64_t c1) { prefetchAhead(xr, b + c0, b + c1, r + 1 < r1 ? ld + n : n); });
                shift[b / kBlock] = m;
            }
            lse = Lse{m, combineSum(acc)}.value();
            for (int64_t b = 0; b < n; b += kBlock) {
                const int64_t len = std::min(kBlock, n - b);
                float* xb = xr + b;
                if (shift[b / kBlock] == kNegInf) {   // the block's logits are still -inf (or the row is)
                    for (int64_t c = 0; c < len; ++c)
                        xb[c] = vec::vexp(xb[c] - lse) * scale;
                    continue;
                }
                const float f = vec::vexp(shift[b / kBlock] - lse) * scale;
                for (int64_t c = 0; c < len; ++c)
                    xb[c] *= f;
            }
        } else {
            lse = logSumExp(xr, n, 1.f).value();
            for (int64_t c = 0; c < n; ++c)
                xr[c] = vec::vexp(xr[c] - lse) * scale;
        }
        loss[lossRow ? lossRow[r] : r] += lse - picked;
        if (t >= 0 && t < n)
            xr[t] = (vec::vexp(picked - lse) - 1.f) * scale;
    }
}

WT_VEC_CLONES
void softmaxRows(const float* x, float* p, int64_t S, float scale, bool causal, int64_t r0, int64_t r1)
{
    // Lane c % 16 of two vectors holds column c, as in maxOf and addExpLanes, so the sums keep
    // their order and their bits. The causal mask is applied in registers: the last block of
    // 16 a row sees is read whole when the row has it (S >= its end) and its masked lanes set
    // to -inf, whose exp is +0 (a sum plus +0 is the sum), so its exps are vector ones instead
    // of up to 15 scalar calls (the causal rows' average tail is 7.5 of 64 scores), and its
    // zeros are the masked lanes' exps. The max of the row is max(x) * scale (scale > 0:
    // rounding is monotonic, so the same value as the max of x * scale), one multiply fewer
    // per score.
    const V8i lane = {0, 1, 2, 3, 4, 5, 6, 7};
    const V8 negInf = V8{} + kNegInf;
    if (!causal && S % kLanes == 0 && scale > 0.f) {
        // Two rows at a time: the same operations per row as below, in the same order, but the
        // per-row chains (the max's tree, the sum's, the division) of the two rows overlap
        // instead of waiting one after the other (rows of 128: 16 vector exps a row hid them
        // badly; 1.46x of the exp rate alone, one thread).
        for (; r0 + 2 <= r1; r0 += 2) {
            const float* xr[2] = {x + r0 * S, x + (r0 + 1) * S};
            float* pr[2] = {p + r0 * S, p + (r0 + 1) * S};
            V8 a[2] = {negInf, negInf}, b[2] = {negInf, negInf};
            for (int64_t c = 0; c < S; c += kLanes)
                for (int q = 0; q < 2; ++q) {
                    const V8 u = load8(xr[q] + c), v = load8(xr[q] + c + 8);
                    a[q] = u > a[q] ? u : a[q];
                    b[q] = v > b[q] ? v : b[q];
                }
            float m[2];
            for (int q = 0; q < 2; ++q) {
                float acc[kLanes];
                toLanes(acc, a[q], b[q]);
                m[q] = combineMax(acc) * scale;
            }
            V8 s0[2] = {}, s1[2] = {};
            for (int64_t c = 0; c < S; c += kLanes)
                for (int q = 0; q < 2; ++q) {
                    const V8 e0 = vexp8<true>(load8(xr[q] + c) * scale - m[q]), e1 = vexp8<true>(load8(xr[q] + c + 8) * scale - m[q]);
                    store8(pr[q] + c, e0);
                    store8(pr[q] + c + 8, e1);
                    s0[q] += e0;
                    s1[q] += e1;
                }
            float inv[2];
            for (int q = 0; q < 2; ++q) {
                float acc[kLanes];
                toLanes(acc, s0[q], s1[q]);
                inv[q] = 1.f / combineSum(acc);
            }
            for (int64_t c = 0; c < S; c += 8)
                for (int q = 0; q < 2; ++q)
                    store8(pr[q] + c, load8(pr[q] + c) * inv[q]);
        }
    }
    for (int64_t r = r0; r < r1; ++r) {
        const float* xr = x + r * S;
        float* pr = p + r * S;
        const int64_t seen = causal ? r % S + 1 : S;
        const int64_t full = seen / kLanes * kLanes;                       // columns in whole blocks
        const bool masked = full < seen && full + kLanes <= S;             // a partial block, read whole
        const int64_t end = masked ? full + kLanes : full;                 // columns the vector loops cover
        V8 a = negInf, b = negInf;
        for (int64_t c = 0; c < full; c += kLanes) {
            const V8 u = load8(xr + c), v = load8(xr + c + 8);
            a = u > a ? u : a;
            b = v > b ? v : b;
        }
        // The partial block: lanes past `seen` are masked.
        const V8i i0 = lane + int32_t(full), i1 = i0 + 8;
        const V8i k0 = i0 < int32_t(seen), k1 = i1 < int32_t(seen);
        V8 tu{}, tv{};
        if (masked) {
            tu = load8(xr + full);
            tv = load8(xr + full + 8);
            const V8 mu = k0 ? tu : negInf, mv = k1 ? tv : negInf;
            a = mu > a ? mu : a;
            b = mv > b ? mv : b;
        }
        float m;
        if (scale > 0.f) {
            float acc[kLanes];
            toLanes(acc, a, b);
            for (int64_t c = end, l = 0; c < seen; ++c, ++l)
                acc[l] = xr[c] > acc[l] ? xr[c] : acc[l];
            m = combineMax(acc) * scale;
        } else {
            m = maxOf(xr, seen, scale);
        }
        // exp once per score, written to p and summed in the same pass, then scaled by 1 / sum
        // (p's row is in L1).
        V8 s0{}, s1{};
        for (int64_t c = 0; c < full; c += kLanes) {
            const V8 e0 = vexp8<true>(load8(xr + c) * scale - m), e1 = vexp8<true>(load8(xr + c + 8) * scale - m);
            store8(pr + c, e0);
            store8(pr + c + 8, e1);
            s0 += e0;
            s1 += e1;
        }
        if (masked) {
            const V8 e0 = vexp8<true>(k0 ? tu * scale - m : negInf), e1 = vexp8<true>(k1 ? tv * scale - m : negInf);   // exp(-inf) = +0
            store8(pr + full, e0);
            store8(pr + full + 8, e1);
            s0 += e0;
            s1 += e1;
        }
        float acc[kLanes];
        toLanes(acc, s0, s1);
        for (int64_t c = end, l = 0; c < seen; ++c, ++l) {
            const float e = vec::vexp(xr[c] * scale - m);
            pr[c] = e;
            acc[l] += e;
        }
        const float inv = 1.f / combineSum(acc);
        const int64_t written = std::max(end, seen);
        for (int64_t c = 0; c < written; ++c)
            pr[c] *= inv;
        for (int64_t c = written; c < S; ++c)
            pr[c] = 0.f;
    }
}

WT_VEC_CLONES
void softmaxBackwardRows(const float* p, const float* dp, float* ds, int64_t S, float scale, int64_t r0, int64_t r1)
{
    for (int64_t r = r0; r < r1; ++r) {
        const float* pr = p + r * S;
        const float* dpr = dp + r * S;
        float* dsr = ds + r * S;
        float acc[kLanes] = {};
        addProductLanes(acc, pr, dpr, S);
        const float s = combineSum(acc);
        for (int64_t c = 0; c < S; ++c)
            dsr[c] = pr[c] * (dpr[c] - s) * scale;
    }
}

WT_VEC_CLONES
void layerNormForwardRows(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                          int64_t C, float eps, int64_t r0, int64_t r1)
{
    for (int64_t r = r0; r < r1; ++r) {
        const float* xr = x + r * C;
        float* yr = y + r * C;
        // Two passes over the row (in L1): the mean, then the centred squares (no cancellation).
        float acc[kLanes] = {};
        addLanes(acc, xr, C);
        const float mu = combineSum(acc) / float(C);
        V8 q0{}, q1{};
        int64_t c = 0;
        for (; c + kLanes <= C; c += kLanes) {
            const V8 d0 = load8(xr + c) - mu, d1 = load8(xr + c + 8) - mu;
            q0 += d0 * d0;
            q1 += d1 * d1;
        }
        float sq[kLanes];
        toLanes(sq, q0, q1);
        for (int l = 0; c < C; ++c, ++l) {
            const float d = xr[c] - mu;
            sq[l] += d * d;
        }
        const float rs = 1.f / std::sqrt(combineSum(sq) / float(C) + eps);
        mean[r] = mu;
        rstd[r] = rs;
        for (int64_t k = 0; k < C; ++k)
            yr[k] = (xr[k] - mu) * rs * gamma[k] + beta[k];
    }
}

WT_VEC_CLONES
void layerNormBackwardRows(const float* x, const float* gamma, const float* dy, const float* mean, const float* rstd,
                           float* dx, int64_t C, bool accumulate, int64_t r0, int64_t r1)
{
    for (int64_t r = r0; r < r1; ++r) {
        const float* xr = x + r * C;
        const float* dyr = dy + r * C;
        float* dxr = dx + r * C;
        const float mu = mean[r], rs = rstd[r];
        // The lanes as GCC vectors: written as a loop over 16 lanes, GCC kept the sums scalar.
        V8 a0{}, a1{}, b0{}, b1{};
        int64_t c = 0;
        for (; c + kLanes <= C; c += kLanes) {
            const V8 g0 = load8(dyr + c) * load8(gamma + c), g1 = load8(dyr + c + 8) * load8(gamma + c + 8);
            const V8 x0 = (load8(xr + c) - mu) * rs, x1 = (load8(xr + c + 8) - mu) * rs;
            a0 += g0;
            a1 += g1;
            b0 += g0 * x0;
            b1 += g1 * x1;
        }
        float a[kLanes], b[kLanes];
        toLanes(a, a0, a1);
        toLanes(b, b0, b1);
        for (int l = 0; c < C; ++c, ++l) {
            const float g = dyr[c] * gamma[c], xh = (xr[c] - mu) * rs;
            a[l] += g;
            b[l] += g * xh;
        }
        const float ma = combineSum(a) / float(C), mb = combineSum(b) / float(C);
        if (accumulate)
            for (int64_t k = 0; k < C; ++k)
                dxr[k] += rs * (dyr[k] * gamma[k] - ma - (xr[k] - mu) * rs * mb);
        else
            for (int64_t k = 0; k < C; ++k)
                dxr[k] = rs * (dyr[k] * gamma[k] - ma - (xr[k] - mu) * rs * mb);
    }
}

namespace {
// GLU's sigmoid(g) = 1 / (1 + exp(-g)) with -g clamped to [-87.33, 87.33] first: exp's
// clamps, its infinity and its zero then never apply (a gate past +-87.33 gives sigmoid
// within 1.2e-38 of 0 or 1, the float64 value to the tests' 2e-7), so its exp is the bounded
// one (25 operations on 8 lanes against vexp8's 40: 5 selects and a scale factor fewer). The
// same bits as 1 / (1 + vexp(-g)) for |g| <= 87.33; the lanes and the scalar twin (for the
// range's ends, which move with the split) the same bits as each other.
constexpr float kSigmoidClamp = 87.33f;
WT_LANES_INLINE V8 sigmoid8(V8 g)
{
    const V8 lo = V8{} - kSigmoidClamp, hi = V8{} + kSigmoidClamp;
    V8 u = -g;
    u = u < lo ? lo : u;
    u = u > hi ? hi : u;
    return 1.f / (1.f + vexp8<false, true>(u));
}
WT_LANES_INLINE float sigmoid1(float g)
{
    float u = -g;
    u = u < -kSigmoidClamp ? -kSigmoidClamp : u;
    u = u > kSigmoidClamp ? kSigmoidClamp : u;
    return 1.f / (1.f + vec::vexp(u));
}
}  // namespace

WT_VEC_CLONES
void gluForwardRange(const float* h, float* out, int64_t C, int64_t i0, int64_t i1)
{
    // Row by row (the range may start and end inside a row): out[r, c] = a * sigmoid(g).
    for (int64_t i = i0; i < i1;) {
        const int64_t r = i / C, c0 = i % C, c1 = std::min(C, c0 + (i1 - i));
        const float* a = h + r * 2 * C;
        const float* g = a + C;
        float* o = out + r * C;
        int64_t c = c0;
        for (; c + 8 <= c1; c += 8)
            store8(o + c, load8(a + c) * sigmoid8(load8(g + c)));
        for (; c < c1; ++c)
            o[c] = a[c] * sigmoid1(g[c]);
        i += c1 - c0;
    }
}

WT_VEC_CLONES
void gluBackwardRange(const float* h, const float* dout, float* dh, int64_t C, int64_t i0, int64_t i1)
{
    // One pass: a, g and dout read once, da and dg written in the same loop.
    for (int64_t i = i0; i < i1;) {
        const int64_t r = i / C, c0 = i % C, c1 = std::min(C, c0 + (i1 - i));
        const float* a = h + r * 2 * C;
        const float* g = a + C;
        const float* d = dout + r * C;
        float* da = dh + r * 2 * C;
        float* dg = da + C;
        int64_t c = c0;
        for (; c + 8 <= c1; c += 8) {
            const V8 s = sigmoid8(load8(g + c)), dv = load8(d + c);
            store8(da + c, dv * s);
            store8(dg + c, dv * load8(a + c) * s * (1.f - s));
        }
        for (; c < c1; ++c) {
            const float s = sigmoid1(g[c]);
            da[c] = d[c] * s;
            dg[c] = d[c] * a[c] * s * (1.f - s);
        }
        i += c1 - c0;
    }
}

WT_VEC_CLONES
void addRange(const float* a, const float* b, float* y, int64_t i0, int64_t i1)
{
    for (int64_t i = i0; i < i1; ++i)
        y[i] = a[i] + b[i];
}

void copyRange(const float* a, float* y, int64_t i0, int64_t i1)
{
    if (i1 > i0)
        std::memcpy(y + i0, a + i0, size_t(i1 - i0) * 4);
}

WT_VEC_CLONES
void biasAddRange(float* y, const float* bias, int64_t n, int64_t i0, int64_t i1)
{
    for (int64_t i = i0; i < i1;) {
        const int64_t c0 = i % n, c1 = std::min(n, c0 + (i1 - i));
        float* yr = y + (i - c0);
        for (int64_t c = c0; c < c1; ++c)
            yr[c] += bias[c];
        i += c1 - c0;
    }
}

void im2colRange(const float* x, float* col, int64_t S, int64_t C, int64_t K, int64_t i0, int64_t i1)
{
    // Segments of one (row, k): a copy of C floats of an earlier token of the same sequence, or zeros.
    const int64_t KC = K * C;
    for (int64_t i = i0; i < i1;) {
        const int64_t row = i / KC, k = (i % KC) / C, c0 = i % C, c1 = std::min(C, c0 + (i1 - i));
        const int64_t s = row % S, src = s - (K - 1) + k;
        float* out = col + i;
        if (src >= 0)
            std::memcpy(out, x + (row - s + src) * C + c0, size_t(c1 - c0) * 4);
        else
            std::memset(out, 0, size_t(c1 - c0) * 4);
        i += c1 - c0;
    }
}

WT_VEC_CLONES
void col2imRange(const float* dcol, float* dx, int64_t S, int64_t C, int64_t K, bool accumulate, int64_t i0,
                 int64_t i1)
{
    // fn::Col2im's sum over k in its order, a row segment at a time. Each segment of the K is
    // 1 KiB of a dcol row 4 KiB from the next one's (K C floats a row): the streams the
    // hardware prefetcher missed. The same segments two rows on are fetched while these sum
    // (1,024 x 256, k 4, dcol from memory: 463 -> 231 us on one thread; in cache no change).
    constexpr int64_t kSeg = 256, kAhead = 2;   // rows
    float acc[kSeg];
    for (int64_t i = i0; i < i1;) {
        const int64_t row = i / C, c0 = i % C, c1 = std::min({C, c0 + (i1 - i), c0 + kSeg}), len = c1 - c0;
        const int64_t s = row % S;
        for (int64_t c = 0; c < len; ++c)
            acc[c] = 0.f;
        for (int64_t k = 0; k < K; ++k) {
            const int64_t dst = s + (K - 1) - k;
            if (dst < S) {
                const float* src = dcol + (row - s + dst) * K * C + k * C + c0;
                if (dst + kAhead < S)   // still this sequence's rows: inside dcol
                    for (int64_t c = 0; c < len; c += 16)
                        __builtin_prefetch(src + kAhead * K * C + c);
                for (int64_t c = 0; c < len; ++c)
                    acc[c] += src[c];
            }
        }
        float* out = dx + i;
        if (accumulate)
            for (int64_t c = 0; c < len; ++c)
                out[c] = out[c] + acc[c];
        else
            for (int64_t c = 0; c < len; ++c)
                out[c] = acc[c];
        i += len;
    }
}

// The column reductions keep a tile of columns in registers (64 sums, 32 pairs: eight AVX2
// registers) over a block of 16 rows, so an element costs one load instead of a load and a
// store of its column's sum, and the block's rows stream along their length from tile to
// tile. Every column is still summed over the rows in order, as the functors do.
constexpr int64_t kColumnRowBlock = 16;

WT_VEC_CLONES
void columnSumColumns(const float* y, float* out, int64_t rows, int64_t C, int64_t j0, int64_t j1)
{
    constexpr int64_t kTile = 64;
    for (int64_t j = j0; j < j1; ++j)
        out[j] = 0.f;
    for (int64_t i0 = 0; i0 < rows; i0 += kColumnRowBlock) {
        const int64_t i1 = std::min(rows, i0 + kColumnRowBlock);
        int64_t j = j0;
        for (; j + kTile <= j1; j += kTile) {
            float acc[kTile];
            for (int64_t c = 0; c < kTile; ++c)
                acc[c] = out[j + c];
            for (int64_t i = i0; i < i1; ++i) {
                const float* yr = y + i * C + j;
                for (int64_t c = 0; c < kTile; ++c)
                    acc[c] += yr[c];
            }
            for (int64_t c = 0; c < kTile; ++c)
                out[j + c] = acc[c];
        }
        for (int64_t i = i0; i < i1; ++i) {
            const float* yr = y + i * C;
            for (int64_t c = j; c < j1; ++c)
                out[c] += yr[c];
        }
    }
}

WT_VEC_CLONES
void layerNormParamGradColumns(const float* x, const float* dy, const float* mean, const float* rstd, float* dgamma,
                               float* dbeta, int64_t rows, int64_t C, int64_t j0, int64_t j1)
{
    constexpr int64_t kTile = 32;
    for (int64_t j = j0; j < j1; ++j)
        dgamma[j] = dbeta[j] = 0.f;
    for (int64_t i0 = 0; i0 < rows; i0 += kColumnRowBlock) {
        const int64_t i1 = std::min(rows, i0 + kColumnRowBlock);
        int64_t j = j0;
        for (; j + kTile <= j1; j += kTile) {
            float g[kTile], b[kTile];
            for (int64_t c = 0; c < kTile; ++c) {
                g[c] = dgamma[j + c];
                b[c] = dbeta[j + c];
            }
            for (int64_t i = i0; i < i1; ++i) {
                const float* xr = x + i * C + j;
                const float* dr = dy + i * C + j;
                const float mu = mean[i], rs = rstd[i];
                for (int64_t c = 0; c < kTile; ++c) {
                    g[c] += dr[c] * (xr[c] - mu) * rs;
                    b[c] += dr[c];
                }
            }
            for (int64_t c = 0; c < kTile; ++c) {
                dgamma[j + c] = g[c];
                dbeta[j + c] = b[c];
            }
        }
        for (int64_t i = i0; i < i1; ++i) {
            const float* xr = x + i * C;
            const float* dr = dy + i * C;
            const float mu = mean[i], rs = rstd[i];
            for (int64_t c = j; c < j1; ++c) {
                dgamma[c] += dr[c] * (xr[c] - mu) * rs;
                dbeta[c] += dr[c];
            }
        }
    }
}

// GELU's exact (erf) definition through vnormcdf: one division and no exp forward; the
// backward's one exp is the normal density's (its erfc needs none).
WT_VEC_CLONES
void geluForwardRange(const float* x, float* y, int64_t i0, int64_t i1)
{
    for (int64_t i = i0; i < i1; ++i)
        y[i] = x[i] * vec::vnormcdf(x[i]);
}

// vec::vnormcdf on 8 lanes, its operations in its order (the same bits).
WT_LANES_INLINE V8 normcdf8(V8 x)
{
    const V8 zero{};
    const V8 a = (x < zero ? -x : x) * 0.70710678118654752f;
    const V8 four = zero + 4.f;
    const V8 ac = a > four ? four : a;
    V8 p = zero + 4.22093814e-4f;
    p = p * ac - 2.17826571e-3f;
    p = p * ac + 6.68106228e-3f;
    p = p * ac - 6.83165528e-3f;
    p = p * ac + 1.55165251e-2f;
    p = p * ac + 1.80629175e-2f;
    p = p * ac + 7.52823278e-2f;
    p = p * ac + 1.98827922e-1f;
    p = p * ac + 2.82099426e-1f;
    const V8 rr = 1.f / (1.f + p * ac), r2 = rr * rr;
    const V8 e = a >= four ? zero : r2 * r2;
    const V8 h = 0.5f * e;
    return x < zero ? h : 1.f - h;
}

WT_VEC_CLONES
void geluBackwardRange(const float* x, const float* dy, float* dx, int64_t i0, int64_t i1)
{
    // The normal density's exp has a non-positive argument (-v^2 / 2): the shifted scores' exp.
    int64_t i = i0;
    for (; i + 8 <= i1; i += 8) {
        const V8 v = load8(x + i);
        const V8 pdf = 0.39894228040143268f * vexp8<true>(-0.5f * v * v);
        store8(dx + i, load8(dy + i) * (normcdf8(v) + v * pdf));
    }
    for (; i < i1; ++i) {
        const float v = x[i];
        const float pdf = 0.39894228040143268f * vec::vexp(-0.5f * v * v);
        dx[i] = dy[i] * (vec::vnormcdf(v) + v * pdf);
    }
}

void headsPermuteRange(const float* src, float* dst, int64_t B, int64_t S, int64_t P, int64_t H, int64_t dh,
                       bool toHeads, int64_t i0, int64_t i1)
{
    for (int64_t i = i0; i < i1;) {
        const int64_t e0 = i % dh, len = std::min(dh - e0, i1 - i);
        const int64_t s = (i / dh) % S, h = (i / (dh * S)) % H, b = (i / (dh * S * H)) % B;
        const int64_t p = i / (dh * S * H * B);
        const int64_t t = (((b * S + s) * P + p) * H + h) * dh + e0;
        if (toHeads)
            std::memcpy(dst + i, src + t, size_t(len) * 4);
        else
            std::memcpy(dst + t, src + i, size_t(len) * 4);
        i += len;
    }
}

void selectRowsRange(const float* src, const int32_t* idx, float* dst, int64_t d, int64_t i0, int64_t i1)
{
    for (int64_t i = i0; i < i1;) {
        const int64_t r = i / d, c0 = i % d, len = std::min(d - c0, i1 - i);
        std::memcpy(dst + i, src + int64_t(idx[r]) * d + c0, size_t(len) * 4);
        i += len;
    }
}

WT_VEC_CLONES
void addRowsRange(const float* src, const int32_t* idx, float* dst, int64_t d, int64_t i0, int64_t i1)
{
    for (int64_t i = i0; i < i1;) {
        const int64_t r = i / d, c0 = i % d, len = std::min(d - c0, i1 - i);
        float* out = dst + int64_t(idx[r]) * d + c0;
        const float* in = src + i;
        for (int64_t c = 0; c < len; ++c)
            out[c] += in[c];
        i += len;
    }
}

WT_VEC_CLONES
void embedPosForwardRange(const int32_t* tok, const float* table, const float* pos, float* out, int64_t d, int64_t S,
                          int64_t i0, int64_t i1)
{
    // A run of one token's row at a time: the functor divided twice per element.
    for (int64_t i = i0; i < i1;) {
        const int64_t t = i / d, c0 = i % d, len = std::min(d - c0, i1 - i);
        const float* a = table + int64_t(tok[t]) * d + c0;
        const float* b = pos + (t % S) * d + c0;
        float* o = out + i;
        for (int64_t c = 0; c < len; ++c)
            o[c] = a[c] + b[c];
        i += len;
    }
}

WT_VEC_CLONES
void posGradRange(const float* dOut, float* dpos, int64_t d, int64_t S, int64_t B, int64_t i0, int64_t i1)
{
    for (int64_t i = i0; i < i1;) {
        const int64_t s = i / d, c0 = i % d, len = std::min(d - c0, i1 - i);
        float* o = dpos + i;
        for (int64_t c = 0; c < len; ++c)
            o[c] = 0.f;
        for (int64_t b = 0; b < B; ++b) {   // b in order, as the functor adds
            const float* in = dOut + (b * S + s) * d + c0;
            for (int64_t c = 0; c < len; ++c)
                o[c] += in[c];
        }
        i += len;
    }
}

WT_VEC_CLONES
void embedSgdRange(const int32_t* tok, const float* g, float* table, int64_t d, float alpha, int64_t i0, int64_t i1)
{
    for (int64_t i = i0; i < i1;) {
        const int64_t r = i / d, c0 = i % d, len = std::min(d - c0, i1 - i);
        float* out = table + int64_t(tok[r]) * d + c0;
        const float* in = g + i;
        for (int64_t c = 0; c < len; ++c)
            out[c] += alpha * in[c];
        i += len;
    }
}

WT_VEC_CLONES
double sumSquaresRange(const float* x, int64_t i0, int64_t i1)
{
    double acc[kLanes] = {};
    int64_t i = i0;
    for (; i + kLanes <= i1; i += kLanes)
        for (int l = 0; l < kLanes; ++l)
            acc[l] += double(x[i + l]) * double(x[i + l]);
    for (int l = 0; i < i1; ++i, ++l)
        acc[l] += double(x[i]) * double(x[i]);
    double t = 0;
    for (int l = 0; l < kLanes; ++l)
        t += acc[l];
    return t;
}

WT_VEC_CLONES
void expRange(const float* x, float* y, int64_t n)
{
    expShifted(x, 1.f, 0.f, y, n);
}

WT_VEC_CLONES
void expNonPositiveRange(const float* x, float* y, int64_t n)
{
    int64_t c = 0;
    for (; c + 8 <= n; c += 8)
        store8(y + c, vexp8<true>(load8(x + c)));
    for (; c < n; ++c)
        y[c] = vec::vexp(x[c]);
}

WT_VEC_CLONES
void scaleCopyRange(const float* x, float* y, float s, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        y[i] = x[i] * s;
}

WT_VEC_CLONES
void sgdRange(float* w, const float* g, float* v, float lr, float mu, float scale, int64_t i0, int64_t i1)
{
    // The same operations in the same order as fn::Sgd (bitwise equal results).
    if (v) {
        for (int64_t i = i0; i < i1; ++i) {
            float gi = g[i] * scale;
            const float vi = mu * v[i] + gi;
            v[i] = vi;
            gi += mu * vi;
            w[i] -= lr * gi;
        }
    } else {
        for (int64_t i = i0; i < i1; ++i)
            w[i] -= lr * (g[i] * scale);
    }
}

}  // namespace wt::kernels::cpu
