#include "modeltracer.h"

#include "storage/writer.h"

#include <algorithm>
#include <stdexcept>

namespace wt::capture {

namespace {

kernels::ScopeLevel levelOfDepth(size_t depth)
{
    return depth == 0 ? kernels::ScopeLevel::Step
           : depth == 1 ? kernels::ScopeLevel::Phase
           : depth == 2 ? kernels::ScopeLevel::Layer
                        : kernels::ScopeLevel::Op;
}

}  // namespace

void ModelTracer::replayStep(const std::vector<kernels::OpInfo>& ops, const std::vector<int64_t>& opNs)
{
    if (ops.size() != opNs.size())
        throw std::invalid_argument("ModelTracer: " + std::to_string(ops.size()) + " ops but " +
                                    std::to_string(opNs.size()) + " times");
    std::vector<std::string_view> parts;
    for (size_t i = 0; i < ops.size(); ++i) {
        const kernels::OpInfo& op = ops[i];
        parts.clear();
        for (size_t from = 0; from <= op.scope.size();) {
            size_t slash = op.scope.find('/', from);
            if (slash == std::string::npos)
                slash = op.scope.size();
            if (slash > from)
                parts.push_back(std::string_view(op.scope).substr(from, slash - from));
            from = slash + 1;
        }
        // Scopes the op shares with the previous one stay open (one instance for consecutive ops).
        size_t common = 0;
        while (common < m_openPath.size() && common < parts.size() && m_openPath[common] == parts[common])
            ++common;
        while (m_openPath.size() > common) {
            scopeExit();
            m_openPath.pop_back();
        }
        for (size_t d = common; d < parts.size(); ++d) {
            scopeEnter(parts[d], levelOfDepth(d));
            m_openPath.emplace_back(parts[d]);
        }
        kernels::OpLaunch launch{op.name, op.flops, op.bytesRead + op.bytesWritten, op.bytesRead, op.bytesWritten, op.kind};
        if (op.dims.n > 0)
            launch.dims = &op.dims;
        m_nextNs = std::max<int64_t>(1, opNs[i]);
        launchBegin(launch);
        launchEnd();
    }
    while (!m_openPath.empty()) {
        scopeExit();
        m_openPath.pop_back();
    }
}

void ModelTracer::launchBegin(const kernels::OpLaunch& op)
{
    // The launch's end is known at its start: both records go to the sink now, the activity
    // first (the order of the file a capture writes: name, activity, shapes, launch row).
    ActivityRecord a;
    a.kind = !m_memoryOps || op.kind == kernels::LaunchKind::Kernel || op.kind == kernels::LaunchKind::Gemm
                 ? ActivityKind::Kernel
             : op.kind == kernels::LaunchKind::Memcpy ? ActivityKind::Memcpy
                                                      : ActivityKind::Memset;
    a.startNs = m_clock - m_origin;
    a.endNs = a.startNs + m_nextNs;
    a.name = nameId(op.name);
    a.scopeInstance = currentInstance();
    a.correlationId = ++m_correlation;
    if (a.kind != ActivityKind::Kernel)
        a.bytes = int64_t(op.bytesRead);   // a copy's or memset's bytes, as CUPTI reports them
    m_sink.activity(a);
    recordLaunch(op, a.correlationId);
    m_clock += m_nextNs;
    m_nextNs = 1;
}

void ModelTracer::launchEnd() {}

int64_t writePredictedRun(Writer& writer, const PredictedRun& run, int64_t* durationNs)
{
    RunInfo info = run.info;
    info.backend = "model";
    info.originNs = 0;
    writer.beginRun(info);
    writer.addDevice(DeviceInfo{0, info.device, info.devicePropertiesJson});
    // The kernel track first, then the memory track: the order of a capture's file.
    writer.addTrack(0, 0, TrackKind::Kernel);
    if (run.memoryOps)
        writer.addTrack(0, 0, TrackKind::Memory);
    int64_t end = 0;
    {
        RecordSink sink(writer);
        sink.setHostThreads(false);   // the model's clock, not a thread's host time
        ModelTracer tracer(sink, run.memoryOps);
        for (int step = 0; step < run.steps; ++step)
            tracer.replayStep(run.ops, run.opNs);
        end = tracer.now();
        sink.close();   // throws StorageError when the writer failed
    }
    for (const auto& [key, value] : run.metadata)
        writer.setMetadata(key, value);
    writer.finishRun(RunStatus::Complete, end);
    if (durationNs)
        *durationNs = end;
    return writer.runId();
}

}  // namespace wt::capture
