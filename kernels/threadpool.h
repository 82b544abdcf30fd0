// A small fork-join pool for the CPU backend's row and elementwise kernels. The calling thread
// takes part, so a pool of n threads starts n - 1 workers. parallelFor splits [0, count) into
// contiguous chunks by a fixed rule (chunkRange), and threads claim chunks one at a time; a
// kernel whose result for an index depends only on that index (a row op: every row reduced
// by one thread in its own order) therefore gives the same bits for any thread count and any
// claiming order. Claiming (rather than one fixed chunk per thread) keeps a worker that the OS
// has not scheduled yet (a loaded 2-core machine) from holding the caller up: the caller
// takes the chunks nobody has claimed.
//
// Workers spin for 60 us after a job (the ops of a step come back to back) and then
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
    // Runs body(lo, hi) over chunks of [0, count) (at least minPerChunk indices each, at most
    // 4 per thread) and returns when all are done; one chunk runs inline. A call made while
    // another runs (from body, or from a second thread) runs its loop inline.
    void parallelFor(int64_t count, int64_t minPerChunk, const std::function<void(int64_t, int64_t)>& body);

private:
    void workerLoop();
    // Claims and runs chunks of job `job` until none is left.
    void runChunks(uint32_t job, const std::function<void(int64_t, int64_t)>& body, int64_t count, int chunks);

    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::atomic<bool> m_busy{false};     // a parallelFor is running
    std::atomic<bool> m_stop{false};
    // The current job, written under m_mutex before m_claim announces it.
    uint32_t m_job = 0;                  // job id (the generation workers wait for)
    const std::function<void(int64_t, int64_t)>* m_body = nullptr;
    int64_t m_count = 0;
    int m_chunks = 0;
    // High 32 bits: job id; low 32: the next chunk to claim. Claims of an old job fail.
    std::atomic<uint64_t> m_claim{0};
    std::atomic<int> m_done{0};          // chunks of the current job finished
};

// The chunk of [0, count) that chunk index i of n gets: [lo, hi).
inline void chunkRange(int64_t count, int n, int i, int64_t& lo, int64_t& hi)
{
    const int64_t base = count / n, extra = count % n;
    lo = i * base + (i < extra ? i : extra);
    hi = lo + base + (i < extra ? 1 : 0);
}

}  // namespace wt::kernels
