// The op runtime every layer runs on: a backend, the observer hooks, the scope stack and the
// dry-run mode that lists a step's launches (name, scope path, shapes, FLOPs, bytes) without
// allocating or computing anything.
#pragma once

#include "kernels/backend.h"
#include "kernels/observer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace wt::kernels {

// Sizes of a launch, kept as numbers so formatting happens only when listing.
struct Dims {
    std::array<std::pair<const char*, int64_t>, 6> v{};
    int n = 0;
    Dims() = default;
    Dims(std::initializer_list<std::pair<const char*, int64_t>> l)
    {
        for (auto& p : l)
            if (n < 6)
                v[size_t(n++)] = p;
    }
    std::string str() const;
    // These sizes with one more (none when all six are taken).
    Dims with(const char* key, int64_t value) const
    {
        Dims d = *this;
        if (d.n < 6)
            d.v[size_t(d.n++)] = {key, value};
        return d;
    }
    // The size named `key` ("M", "rows", ...), 0 when the launch has none.
    int64_t get(std::string_view key) const
    {
        for (int k = 0; k < n; ++k)
            if (key == v[size_t(k)].first)
                return v[size_t(k)].second;
        return 0;
    }
};

// The GEMM sizes of a launch, read from its Dims ("M", "N", "K", "batch"): the one reading, for
// captures (capture/tracer.cpp) and predictions alike. Batch 1 for a single GEMM; all 0 when the
// launch is not a GEMM.
struct GemmShape {
    int64_t m = 0, n = 0, k = 0, batch = 0;
};
GemmShape gemmShape(LaunchKind kind, const Dims& dims);

// One launch of a step as listed by Model::listOps().
struct OpInfo {
    std::string name;     // kernel-like name, as OpLaunch::name
    std::string scope;    // scope path, e.g. "step/forward/conv1/conv_gemm"
    std::string shapes;   // the sizes that define the launch, e.g. "M=4096 N=2048 K=1024" (dims.str())
    Dims dims;            // the same sizes as numbers (their names are string literals)
    double flops = 0;
    double bytesRead = 0;
    double bytesWritten = 0;
    LaunchKind kind = LaunchKind::Kernel;
};

class Runtime;

// A device buffer owned by a layer; empty (null) in dry-run mode.
class Buffer {
public:
    Buffer() = default;
    Buffer(Runtime* rt, size_t bytes);
    ~Buffer();
    Buffer(Buffer&& o) noexcept { swap(o); }
    Buffer& operator=(Buffer&& o) noexcept { Buffer t(std::move(o)); swap(t); return *this; }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    float* f() const { return static_cast<float*>(m_p); }
    int32_t* i() const { return static_cast<int32_t*>(m_p); }
    size_t bytes() const { return m_bytes; }
    size_t floats() const { return m_bytes / sizeof(float); }

private:
    void swap(Buffer& o) noexcept { std::swap(m_rt, o.m_rt); std::swap(m_p, o.m_p); std::swap(m_bytes, o.m_bytes); }
    Runtime* m_rt = nullptr;
    void* m_p = nullptr;
    size_t m_bytes = 0;   // capacity
};

class Runtime {
public:
    // backend == nullptr: dry-run runtime (lists ops, computes nothing).
    explicit Runtime(std::unique_ptr<Backend> backend);
    ~Runtime();

    bool dry() const { return !m_backend; }
    bool onDevice() const { return m_backend && m_backend->kind() == BackendKind::Cuda; }
    Backend& backend() { return *m_backend; }
    void setObserver(Observer* o) { m_observer = o; }
    Observer* observer() const { return m_observer; }
    // Collects every launch into `out` (also in normal runs; used by dry runs).
    void setListing(std::vector<OpInfo>* out) { m_listing = out; }
    // Sizing pass: buffers are allocated (ensure) but no launch runs or is observed. The model
    // runs one before the first step so that steps allocate nothing.
    void setSizing(bool on) { m_sizing = on; }
    bool sizing() const { return m_sizing; }
    // Device allocations made so far (a traced step must make none).
    int64_t allocations() const { return m_allocations; }

    void enter(std::string_view name, ScopeLevel level)
    {
        if (m_observer)
            m_observer->scopeEnter(name, level);
        if (m_listing)
            m_path.emplace_back(name);
    }
    void exit()
    {
        if (m_observer)
            m_observer->scopeExit();
        if (m_listing)
            m_path.pop_back();
    }
    // Returns whether the body should run (false in dry-run mode); end() must follow either way.
    bool begin(const OpLaunch& op, const Dims& dims)
    {
        if (m_sizing)
            return false;
        if (m_listing)
            record(op, dims);
        if (m_observer) {
            OpLaunch observed = op;   // the observer also gets the sizes (op features in captures)
            observed.dims = &dims;
            m_observer->launchBegin(observed);
        }
        return m_backend != nullptr;
    }
    void end()
    {
        if (m_observer && !m_sizing)
            m_observer->launchEnd();
    }

    // Ensures `b` holds at least `bytes` (grows, never shrinks; content is not kept on growth).
    void ensure(Buffer& b, size_t bytes);

    // Observed wrappers of the backend calls.
    void gemm(std::string_view name, bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda,
              const float* B, int ldb, float beta, float* C, int ldc);
    void gemmBatched(std::string_view name, bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                     int lda, int64_t sA, const float* B, int ldb, int64_t sB, float beta, float* C, int ldc,
                     int64_t sC, int batch);
    // While on, gemm() runs in bfloat16 (Backend::gemmBf16) under the names bf16gemm_nn/nt/tn/tt.
    void setBf16Gemms(bool on) { m_bf16Gemms = on; }
    bool bf16Gemms() const { return m_bf16Gemms; }
    void zero(std::string_view name, void* p, size_t bytes);
    void upload(std::string_view name, void* dst, const void* src, size_t bytes);
    void download(std::string_view name, void* dst, const void* src, size_t bytes);
    void synchronize() { if (m_backend) m_backend->synchronize(); }

    // Device scratch for the partial results of split reductions (launch.h); allocated by the
    // first call, which Model::prepare() makes on the GPU (never inside a step).
    static constexpr size_t kScratchBytes = size_t(1) << 20;
    void* scratch()
    {
        ensure(m_scratch, kScratchBytes);
        return m_scratch.f();
    }

    void* rawAllocate(size_t bytes)
    {
        if (!m_backend)
            return nullptr;
        ++m_allocations;
        return m_backend->allocate(bytes);
    }
    void rawRelease(void* p) noexcept { if (m_backend && p) m_backend->release(p); }

private:
    void record(const OpLaunch& op, const Dims& dims);

    std::unique_ptr<Backend> m_backend;
    Observer* m_observer = nullptr;
    std::vector<OpInfo>* m_listing = nullptr;
    std::vector<std::string> m_path;
    bool m_sizing = false;
    bool m_bf16Gemms = false;
    int64_t m_allocations = 0;
    Buffer m_scratch;   // declared last: released before the backend goes
};

// RAII scope.
class Scope {
public:
    Scope(Runtime& rt, std::string_view name, ScopeLevel level) : m_rt(rt) { rt.enter(name, level); }
    ~Scope() { m_rt.exit(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

private:
    Runtime& m_rt;
};

}  // namespace wt::kernels
