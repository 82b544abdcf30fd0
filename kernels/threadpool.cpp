#include "kernels/threadpool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WT_PAUSE() _mm_pause()
#else
#define WT_PAUSE() ((void)0)
#endif

namespace wt::kernels {

namespace {
// The caller's wait for the chunks a worker still runs: pauses, then yields.
constexpr int kSpinIterations = 200;
// A worker spins this long after its last chunk before it sleeps. A sleeping worker joined the
// next job 20-30 us late on this VM (a futex wake of an idle vCPU), a quarter of a 16-item
// attention product (~80 us on two cores), and in the workloads' steps it was asleep at most
// jobs: it finished its chunks 10-50 us before the caller finished its own and the step's next
// op started (load 2.7; docs/performance.md, seventh round). 200 pauses (5 us at this Zen 5's
// 26 ns a pause) did not bridge that. By the clock, not by pauses, whose length differs several
// times between CPUs; yielding every ~0.5 us, so on a loaded machine a process waiting for
// this core gets it (a pure spin made a loaded run's batched products slower). Short enough that
// a pool left idle for OpenBLAS's threads (a GEMM on OpenBLAS, milliseconds) takes one core
// from them for a few percent of the call.
constexpr auto kWorkerSpin = std::chrono::microseconds(60);
constexpr int kChunksPerThread = 4;
}

ThreadPool::ThreadPool(int threads)
{
    threads = std::max(1, threads);
    for (int i = 1; i < threads; ++i)
        m_workers.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
        ++m_job;
    }
    m_wake.notify_all();
    for (auto& t : m_workers)
        t.join();
}

void ThreadPool::runChunks(uint32_t job, const std::function<void(int64_t, int64_t)>& body, int64_t count, int chunks)
{
    for (;;) {
        uint64_t v = m_claim.load(std::memory_order_acquire);
        if (uint32_t(v >> 32) != job || int(uint32_t(v)) >= chunks)
            return;
        if (!m_claim.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel))
            continue;
        int64_t lo, hi;
        chunkRange(count, chunks, int(uint32_t(v)), lo, hi);
        body(lo, hi);
        m_done.fetch_add(1, std::memory_order_acq_rel);
    }
}

void ThreadPool::parallelFor(int64_t count, int64_t minPerChunk, const std::function<void(int64_t, int64_t)>& body)
{
    if (count <= 0)
        return;
    const int64_t byWork = count / std::max<int64_t>(1, minPerChunk);
    const int chunks = int(std::clamp<int64_t>(byWork, 1, int64_t(threads()) * kChunksPerThread));
    if (chunks == 1 || m_workers.empty() || m_busy.exchange(true, std::memory_order_acquire)) {
        body(0, count);
        return;
    }
    uint32_t job;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        job = ++m_job;
        m_body = &body;
        m_count = count;
        m_chunks = chunks;
        m_done.store(0, std::memory_order_relaxed);
        m_claim.store(uint64_t(job) << 32, std::memory_order_release);
    }
    m_wake.notify_all();
    runChunks(job, body, count, chunks);
    // Only chunks that a worker claimed and is running are left.
    for (int spin = 0; m_done.load(std::memory_order_acquire) < chunks; ++spin) {
        if (spin < kSpinIterations)
            WT_PAUSE();
        else
            std::this_thread::yield();
    }
    m_busy.store(false, std::memory_order_release);
}

void ThreadPool::workerLoop()
{
    uint32_t seen = 0;
    for (;;) {
        const std::function<void(int64_t, int64_t)>* body = nullptr;
        int64_t count = 0;
        int chunks = 0;
        uint32_t job = 0;
        const auto spinUntil = std::chrono::steady_clock::now() + kWorkerSpin;
        for (int spin = 1;; ++spin) {
            uint64_t v = m_claim.load(std::memory_order_acquire);
            if (uint32_t(v >> 32) != seen)
                break;
            WT_PAUSE();
            if (spin % 16 == 0) {   // every ~0.5 us: the clock, and the core to whoever else waits for it
                if (std::chrono::steady_clock::now() >= spinUntil)
                    break;
                std::this_thread::yield();
            }
        }
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [&] { return m_job != seen || m_stop; });
            if (m_stop)
                return;
            job = seen = m_job;
            body = m_body;
            count = m_count;
            chunks = m_chunks;
        }
        runChunks(job, *body, count, chunks);
    }
}

}  // namespace wt::kernels
