#include "cuptitracer.h"

#include "storage/json.h"

#include <cuda_runtime.h>
#include <cupti.h>

#include <cstdlib>
#include <stdexcept>
#include <string_view>

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

CuptiTracer::CuptiTracer(RecordSink& sink, const std::atomic<bool>* stop) : Tracer(sink, stop), m_records(sink)
{
    if (g_active)
        throw std::runtime_error("CUPTI: only one tracer at a time");
    g_active = this;
    setOrigin(now());   // before any record can arrive: records are made relative to it
    m_records.setOrigin(m_origin);
    try {
        // API records name their thread by OS tid, as the sink's host_threads rows do (the
        // default is pthread_self(), which nothing else can join on).
        check(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), "setting the thread id type");
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

void CuptiTracer::launchBegin(const kernels::OpLaunch& op)
{
    checkStop();
    // External id = this launch: its op name and scope instance (CuptiRecords).
    const uint64_t external = m_records.beginLaunch(currentInstance(), op.name);
    recordLaunch(op, int64_t(external));
    cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, external);
}

void CuptiTracer::launchEnd()
{
    uint64_t id = 0;
    cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id);
}

namespace {
// Memcpy and memset records share their fields (CUPTI's structs differ, the names do not).
template <typename Record>
CuptiRecords::Memory memoryRecord(ActivityKind kind, const Record& m, const char* name)
{
    CuptiRecords::Memory r;
    r.kind = kind;
    r.device = int32_t(m.deviceId);
    r.stream = m.streamId;
    r.startNs = m.start;
    r.endNs = m.end;
    r.name = name;
    r.correlation = m.correlationId;
    r.bytes = int64_t(m.bytes);
    return r;
}
}  // namespace

void CuptiTracer::bufferCompleted(uint8_t* buffer, size_t validSize)
{
    if (!buffer) {
        m_records.cuptiDropped(int64_t(validSize));
        return;
    }
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &rec) == CUPTI_SUCCESS) {
        switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(rec);
            CuptiRecords::Kernel r;
            r.device = int32_t(k->deviceId);
            r.stream = k->streamId;
            r.startNs = k->start;
            r.endNs = k->end;
            r.rawName = k->name ? std::string_view(k->name) : std::string_view();
            r.correlation = k->correlationId;
            r.config.grid[0] = k->gridX;
            r.config.grid[1] = k->gridY;
            r.config.grid[2] = k->gridZ;
            r.config.block[0] = k->blockX;
            r.config.block[1] = k->blockY;
            r.config.block[2] = k->blockZ;
            r.config.registers = k->registersPerThread;
            r.config.staticSmem = k->staticSharedMemory;
            r.config.dynamicSmem = k->dynamicSharedMemory;
            m_records.kernel(r);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(rec);
            m_records.memory(memoryRecord(ActivityKind::Memcpy, *m, memcpyName(m->copyKind)));
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(rec);
            m_records.memory(memoryRecord(ActivityKind::Memset, *m, "[CUDA memset]"));
            break;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER: {
            auto* a = reinterpret_cast<CUpti_ActivityAPI*>(rec);
            const char* name = nullptr;
            cuptiGetCallbackName(rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                                 a->cbid, &name);
            CuptiRecords::Api r;
            r.threadId = int64_t(a->threadId);
            r.startNs = a->start;
            r.endNs = a->end;
            r.name = name ? std::string_view(name) : std::string_view();
            r.correlation = a->correlationId;
            m_records.api(r);
            break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
            auto* e = reinterpret_cast<CUpti_ActivityExternalCorrelation*>(rec);
            if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
                m_records.external(e->correlationId, e->externalId);
            break;
        }
        default:
            break;
        }
    }
}

void CuptiTracer::endStep()
{
    // Forced: also the buffers that are not full yet (their unfinished records come back
    // with a zero start or end and are dropped and counted). CUPTI calls bufferCompleted for
    // each before returning.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    m_records.flush();
}

void CuptiTracer::stop()
{
    if (!m_started)
        return;
    m_started = false;
    cudaDeviceSynchronize();   // after a device error this fails too: what CUPTI has is flushed anyway
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    m_records.flush();
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
}

std::vector<std::pair<std::string, std::string>> CuptiTracer::runMetadata() const
{
    std::string names = "{";
    for (const auto& [readable, raws] : m_records.rawNames()) {
        if (names.size() > 1)
            names += ',';
        names += json::quote(readable) + ":[";
        bool first = true;
        for (const std::string& raw : raws) {
            names += (first ? "" : ",") + json::quote(raw);
            first = false;
        }
        names += ']';
    }
    names += '}';
    return {{"kernel_raw_names", names}, {"incomplete_records", std::to_string(m_records.incomplete())}};
}

int64_t CuptiTracer::droppedRecords() const
{
    return m_records.dropped() + m_sink.dropped();
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
