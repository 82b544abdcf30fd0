// A small fork-join pool for the CPU backend's row and elementwise kernels. The calling thread
// takes part (chunk 0), so a pool of n threads starts n - 1 workers. parallelFor splits
// [0, count) into contiguous chunks by a fixed rule, each index in exactly one chunk, so a
// kernel whose result for an index depends only on that index (a row op: every row reduced
// by one thread in its own order) gives the same bits for any thread count.
//
// Workers spin briefly after a job (the row kernels come in bursts between GEMMs) and then
// sleep on a condition variable, so an idle pool does not take cores from OpenBLAS.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wt::kernels {

class ThreadPool {
public:
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int threads() const { return int(m_workers.size()) + 1; }
    // Runs body(lo, hi) over chunks of [0, count) on up to threads() threads and returns when
    // all are done. Fewer chunks when count / minPerChunk is small (one chunk: runs inline).
    // body must not call parallelFor of the same pool (it would run inline).
    void parallelFor(int64_t count, int64_t minPerChunk, const std::function<void(int64_t, int64_t)>& body);

private:
    void workerLoop(int index);

    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::atomic<bool> m_busy{false};   // a parallelFor is running (callers after it run inline)
    std::condition_variable m_wake;
    std::atomic<uint64_t> m_generation{0};
    std::atomic<int> m_pending{0};
    std::atomic<bool> m_stop{false};
    // The current job (valid while m_pending > 0).
    const std::function<void(int64_t, int64_t)>* m_body = nullptr;
    int64_t m_count = 0;
    int m_chunks = 0;
};

// The chunk of [0, count) that chunk index i of n gets: [lo, hi).
inline void chunkRange(int64_t count, int n, int i, int64_t& lo, int64_t& hi)
{
    const int64_t base = count / n, extra = count % n;
    lo = i * base + (i < extra ? i : extra);
    hi = lo + base + (i < extra ? 1 : 0);
}

}  // namespace wt::kernels
