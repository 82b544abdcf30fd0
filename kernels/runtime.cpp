#include "kernels/runtime.h"

namespace wt::kernels {

std::string Dims::str() const
{
    std::string s;
    for (int k = 0; k < n; ++k) {
        if (k)
            s += ' ';
        s += v[size_t(k)].first;
        s += '=';
        s += std::to_string(v[size_t(k)].second);
    }
    return s;
}

GemmShape gemmShape(LaunchKind kind, const Dims& dims)
{
    GemmShape g;
    if (kind != LaunchKind::Gemm)
        return g;
    g.m = dims.get("M");
    g.n = dims.get("N");
    g.k = dims.get("K");
    g.batch = dims.get("batch");
    if (g.batch == 0)
        g.batch = 1;
    return g;
}

Buffer::Buffer(Runtime* rt, size_t bytes) : m_rt(rt), m_p(rt->rawAllocate(bytes)), m_bytes(bytes) {}
Buffer::~Buffer()
{
    if (m_rt)
        m_rt->rawRelease(m_p);
}

Runtime::Runtime(std::unique_ptr<Backend> backend) : m_backend(std::move(backend)) {}
Runtime::~Runtime() = default;

void Runtime::ensure(Buffer& b, size_t bytes)
{
    if (b.bytes() >= bytes && (dry() || b.f()))
        return;
    b = Buffer(this, bytes);
}

void Runtime::record(const OpLaunch& op, const Dims& dims)
{
    OpInfo info;
    info.name = std::string(op.name);
    for (size_t i = 0; i < m_path.size(); ++i)
        info.scope += (i ? "/" : "") + m_path[i];
    info.shapes = dims.str();
    info.dims = dims;
    info.flops = op.flops;
    info.bytesRead = op.bytesRead;
    info.bytesWritten = op.bytesWritten;
    info.kind = op.kind;
    m_listing->push_back(std::move(info));
}

namespace {
OpLaunch gemmLaunch(std::string_view name, double M, double N, double K, double batch, bool accumulate)
{
    double rd = 4.0 * batch * (M * K + K * N + (accumulate ? M * N : 0));
    double wr = 4.0 * batch * M * N;
    return {name, 2.0 * M * N * K * batch, rd + wr, rd, wr, LaunchKind::Gemm};
}
}  // namespace

void Runtime::gemm(std::string_view name, bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda,
                   const float* B, int ldb, float beta, float* C, int ldc)
{
    if (M <= 0 || N <= 0)
        return;
    if (m_bf16Gemms) {
        static constexpr std::string_view kNames[] = {"bf16gemm_nn", "bf16gemm_tn", "bf16gemm_nt", "bf16gemm_tt"};
        if (begin(gemmLaunch(kNames[int(ta) + 2 * int(tb)], M, N, K, 1, beta != 0.f), {{"M", M}, {"N", N}, {"K", K}}))
            m_backend->gemmBf16(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        end();
        return;
    }
    if (begin(gemmLaunch(name, M, N, K, 1, beta != 0.f), {{"M", M}, {"N", N}, {"K", K}}))
        m_backend->gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    end();
}

void Runtime::gemmBatched(std::string_view name, bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                          int lda, int64_t sA, const float* B, int ldb, int64_t sB, float beta, float* C, int ldc,
                          int64_t sC, int batch)
{
    if (begin(gemmLaunch(name, M, N, K, batch, beta != 0.f), {{"batch", batch}, {"M", M}, {"N", N}, {"K", K}}))
        m_backend->gemmBatched(ta, tb, M, N, K, alpha, A, lda, sA, B, ldb, sB, beta, C, ldc, sC, batch);
    end();
}

void Runtime::zero(std::string_view name, void* p, size_t bytes)
{
    if (begin({name, 0, double(bytes), 0, double(bytes), LaunchKind::Memset}, {{"bytes", int64_t(bytes)}}))
        m_backend->zero(p, bytes);
    end();
}

void Runtime::upload(std::string_view name, void* dst, const void* src, size_t bytes)
{
    if (begin({name, 0, double(bytes), double(bytes), double(bytes), LaunchKind::Memcpy}, {{"bytes", int64_t(bytes)}}))
        m_backend->upload(dst, src, bytes);
    end();
}

void Runtime::download(std::string_view name, void* dst, const void* src, size_t bytes)
{
    if (begin({name, 0, double(bytes), double(bytes), double(bytes), LaunchKind::Memcpy}, {{"bytes", int64_t(bytes)}}))
        m_backend->download(dst, src, bytes);
    end();
}

}  // namespace wt::kernels
