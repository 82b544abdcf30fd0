#include "kernels/threadpool.h"

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WT_PAUSE() _mm_pause()
#else
#define WT_PAUSE() ((void)0)
#endif

namespace wt::kernels {

namespace {
// About 20-50 us of spinning before a worker sleeps: longer than the gap between two row ops
// of a layer, much shorter than a GEMM (during which OpenBLAS wants both cores).
constexpr int kSpinIterations = 20000;
}

ThreadPool::ThreadPool(int threads)
{
    threads = std::max(1, threads);
    for (int i = 1; i < threads; ++i)
        m_workers.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
        m_generation.fetch_add(1);
    }
    m_wake.notify_all();
    for (auto& t : m_workers)
        t.join();
}

void ThreadPool::parallelFor(int64_t count, int64_t minPerChunk, const std::function<void(int64_t, int64_t)>& body)
{
    if (count <= 0)
        return;
    const int64_t byWork = count / std::max<int64_t>(1, minPerChunk);
    const int chunks = int(std::clamp<int64_t>(byWork, 1, threads()));
    // One caller at a time (two runtimes on two threads): the second runs its loop inline,
    // which gives the same results.
    if (chunks == 1 || m_busy.exchange(true, std::memory_order_acquire)) {
        body(0, count);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_body = &body;
        m_count = count;
        m_chunks = chunks;
        m_pending.store(chunks - 1);
        m_generation.fetch_add(1, std::memory_order_release);
    }
    m_wake.notify_all();
    int64_t lo, hi;
    chunkRange(count, chunks, 0, lo, hi);
    body(lo, hi);
    while (m_pending.load(std::memory_order_acquire) > 0)
        WT_PAUSE();
    m_busy.store(false, std::memory_order_release);
}

void ThreadPool::workerLoop(int index)
{
    uint64_t seen = 0;
    for (;;) {
        uint64_t gen = m_generation.load(std::memory_order_acquire);
        for (int spin = 0; gen == seen && spin < kSpinIterations; ++spin) {
            WT_PAUSE();
            gen = m_generation.load(std::memory_order_acquire);
        }
        if (gen == seen) {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [&] { return m_generation.load() != seen; });
            gen = m_generation.load();
        }
        const std::function<void(int64_t, int64_t)>* body;
        int64_t count;
        int chunks;
        {
            // The job and its generation together: a worker that slept through a job whose
            // chunks did not include it must not take the next job for the old one.
            std::lock_guard<std::mutex> lock(m_mutex);
            seen = m_generation.load();
            body = m_body;
            count = m_count;
            chunks = m_chunks;
        }
        if (m_stop)
            return;
        if (index < chunks) {
            int64_t lo, hi;
            chunkRange(count, chunks, index, lo, hi);
            (*body)(lo, hi);
            m_pending.fetch_sub(1, std::memory_order_acq_rel);
        }
    }
}

}  // namespace wt::kernels
