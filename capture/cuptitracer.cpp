#include "cuptitracer.h"

#include "storage/json.h"

#include <cuda_runtime.h>
#include <cupti.h>

#include <cstdlib>
#include <stdexcept>

namespace wt::capture {

namespace {

constexpr size_t kBufferSize = 8 * 1024 * 1024;
constexpr size_t kAlign = 8;
CuptiTracer* g_active = nullptr;   // CUPTI callbacks carry no user pointer

void check(CUptiResult r, const char* what)
{
    if (r != CUPTI_SUCCESS) {
        const char* msg = nullptr;
        cuptiGetResultString(r, &msg);
        throw std::runtime_error(std::string("CUPTI: ") + what + " failed: " + (msg ? msg : "unknown error"));
    }
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords)
{
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlign, kBufferSize));
    *size = *buffer ? kBufferSize : 0;
    *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t* buffer, size_t, size_t validSize)
{
    if (g_active)
        g_active->bufferCompleted(buffer, validSize);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, streamId, &dropped) == CUPTI_SUCCESS && dropped && g_active)
        g_active->bufferCompleted(nullptr, dropped);   // nullptr buffer: a dropped count
    std::free(buffer);
}

const char* memcpyName(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "[CUDA memcpy HtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "[CUDA memcpy DtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "[CUDA memcpy DtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "[CUDA memcpy HtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "[CUDA memcpy PtoP]";
    default: return "[CUDA memcpy]";
    }
}

}  // namespace

CuptiTracer::CuptiTracer(RecordSink& sink, const std::atomic<bool>* stop) : Tracer(sink, stop)
{
    if (g_active)
        throw std::runtime_error("CUPTI: only one tracer at a time");
    g_active = this;
    setOrigin(now());   // before any record can arrive: records are made relative to it
    try {
        check(cuptiActivityRegisterCallbacks(wt::capture::bufferRequested, wt::capture::bufferCompleted), "registering buffer callbacks");
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enabling kernel records");
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "enabling memcpy records");
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "enabling memset records");
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "enabling runtime API records");
        // Libraries such as cuBLAS launch through the driver API: its records carry the
        // external correlation of those launches.
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "enabling driver API records");
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), "enabling external correlation");
    } catch (...) {
        g_active = nullptr;
        throw;
    }
    m_started = true;
}

CuptiTracer::~CuptiTracer()
{
    try {
        stop();
    } catch (...) {
    }
    g_active = nullptr;
}

int64_t CuptiTracer::now() const
{
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return int64_t(t);
}

void CuptiTracer::launchBegin(const kernels::OpLaunch&)
{
    checkStop();
    // External id = the sink's scope instance id (+0: ids start at 1, 0 = none).
    cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, uint64_t(currentInstance()));
}

void CuptiTracer::launchEnd()
{
    uint64_t id = 0;
    cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id);
}

// Memcpy and memset records share their fields (CUPTI's structs differ, the names do not).
template <typename Record>
CuptiTracer::Pending CuptiTracer::memoryRecord(ActivityKind kind, const Record& m, const char* name)
{
    Pending p;
    p.record.device = int32_t(m.deviceId);
    p.record.stream = m.streamId;
    p.record.kind = kind;
    p.record.startNs = int64_t(m.start) - m_origin;
    p.record.endNs = int64_t(m.end) - m_origin;
    p.record.name = m_sink.name(name);
    p.record.correlationId = m.correlationId;
    p.record.bytes = int64_t(m.bytes);
    p.correlation = m.correlationId;
    return p;
}

void CuptiTracer::bufferCompleted(uint8_t* buffer, size_t validSize)
{
    std::lock_guard lock(m_mutex);
    if (!buffer) {
        m_cuptiDropped += int64_t(validSize);
        return;
    }
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &rec) == CUPTI_SUCCESS) {
        switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(rec);
            Pending p;
            p.record.device = int32_t(k->deviceId);
            p.record.stream = k->streamId;
            p.record.kind = ActivityKind::Kernel;
            p.record.startNs = int64_t(k->start) - m_origin;
            p.record.endNs = int64_t(k->end) - m_origin;
            p.record.name = m_sink.name(k->name ? k->name : "(unnamed kernel)");
            p.record.correlationId = k->correlationId;
            p.record.config.grid[0] = k->gridX;
            p.record.config.grid[1] = k->gridY;
            p.record.config.grid[2] = k->gridZ;
            p.record.config.block[0] = k->blockX;
            p.record.config.block[1] = k->blockY;
            p.record.config.block[2] = k->blockZ;
            p.record.config.registers = k->registersPerThread;
            p.record.config.staticSmem = k->staticSharedMemory;
            p.record.config.dynamicSmem = k->dynamicSharedMemory;
            p.correlation = k->correlationId;
            m_pending.push_back(p);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(rec);
            m_pending.push_back(memoryRecord(ActivityKind::Memcpy, *m, memcpyName(m->copyKind)));
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(rec);
            m_pending.push_back(memoryRecord(ActivityKind::Memset, *m, "[CUDA memset]"));
            break;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER: {
            auto* a = reinterpret_cast<CUpti_ActivityAPI*>(rec);
            const char* name = nullptr;
            cuptiGetCallbackName(rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                                 a->cbid, &name);
            ApiRecord r;
            r.threadId = a->threadId;
            r.startNs = int64_t(a->start) - m_origin;
            r.endNs = int64_t(a->end) - m_origin;
            r.name = m_sink.name(name ? name : "cuda API call");
            r.correlationId = a->correlationId;
            m_api.push_back(r);
            break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
            auto* e = reinterpret_cast<CUpti_ActivityExternalCorrelation*>(rec);
            if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
                m_external[e->correlationId] = int64_t(e->externalId);
            break;
        }
        default:
            break;
        }
    }
}

void CuptiTracer::attributeAndQueue()
{
    std::vector<Pending> pending;
    std::vector<ApiRecord> api;
    {
        std::lock_guard lock(m_mutex);
        pending.swap(m_pending);
        api.swap(m_api);
    }
    for (Pending& p : pending) {
        std::lock_guard lock(m_mutex);
        auto it = m_external.find(p.correlation);
        p.record.scopeInstance = it == m_external.end() ? 0 : it->second;
        if (it != m_external.end())
            m_external.erase(it);
    }
    for (const Pending& p : pending)
        m_sink.activity(p.record);
    for (const ApiRecord& a : api)
        m_sink.apiCall(a);
}

void CuptiTracer::endStep()
{
    // Forced: also the buffers that are not full yet. Then drain until CUPTI has no more.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    attributeAndQueue();
}

void CuptiTracer::stop()
{
    if (!m_started)
        return;
    m_started = false;
    cudaDeviceSynchronize();
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    attributeAndQueue();
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
}

int64_t CuptiTracer::droppedRecords() const
{
    std::lock_guard lock(const_cast<std::mutex&>(m_mutex));
    return m_cuptiDropped + m_sink.dropped();
}

DeviceInfo CuptiTracer::deviceInfo(int device)
{
    cudaDeviceProp p {};
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess)
        throw std::runtime_error("CUDA: cannot read the properties of device " + std::to_string(device));
    auto attr = [&](cudaDeviceAttr a) {
        int v = 0;
        cudaDeviceGetAttribute(&v, a, device);
        return v;
    };
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    int smClockKHz = attr(cudaDevAttrClockRate);
    int memClockKHz = attr(cudaDevAttrMemoryClockRate);
    int busWidth = attr(cudaDevAttrGlobalMemoryBusWidth);
    // DDR: two transfers per clock.
    double bandwidth = 2.0 * memClockKHz * 1e3 * (busWidth / 8.0);
    DeviceInfo d;
    d.id = device;
    d.name = p.name;
    d.propertiesJson = "{\"name\":" + json::quote(p.name) + ",\"sm_count\":" + std::to_string(p.multiProcessorCount) +
                       ",\"memory_bytes\":" + std::to_string(p.totalGlobalMem) +
                       ",\"memory_bandwidth_bytes_per_s\":" + json::number(bandwidth) +
                       ",\"memory_bus_width_bits\":" + std::to_string(busWidth) +
                       ",\"sm_clock_khz\":" + std::to_string(smClockKHz) +
                       ",\"memory_clock_khz\":" + std::to_string(memClockKHz) +
                       ",\"compute_capability\":\"" + std::to_string(p.major) + "." + std::to_string(p.minor) + "\"" +
                       ",\"driver_version\":" + std::to_string(driver) + ",\"runtime_version\":" + std::to_string(runtime) +
                       ",\"l2_bytes\":" + std::to_string(p.l2CacheSize) + "}";
    return d;
}

}  // namespace wt::capture
