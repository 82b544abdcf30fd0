#include "capture.h"

#include "capture/cputracer.h"
#include "capture/cudaplugin.h"
#include "capture/recordsink.h"
#include "kernels/model.h"
#include "storage/database.h"
#include "storage/isotime.h"
#include "storage/writer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <memory>

namespace wt::capture {

namespace {

std::atomic<bool> g_stop{false};

extern "C" void onStopSignal(int) { g_stop.store(true); }

struct SignalGuard {
    bool active = false;
    struct sigaction oldInt {}, oldTerm {}, oldHup {};
    explicit SignalGuard(bool install)
    {
        g_stop = false;
        if (!install)
            return;
        struct sigaction sa {};
        sa.sa_handler = onStopSignal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &oldInt);
        sigaction(SIGTERM, &sa, &oldTerm);
        sigaction(SIGHUP, &sa, &oldHup);   // a closed terminal stops the capture like Ctrl-C
        active = true;
    }
    ~SignalGuard()
    {
        if (active) {
            sigaction(SIGINT, &oldInt, nullptr);
            sigaction(SIGTERM, &oldTerm, nullptr);
            sigaction(SIGHUP, &oldHup, nullptr);
        }
    }
};

int64_t wallNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<int64_t> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? double(v[n / 2]) : (double(v[n / 2 - 1]) + double(v[n / 2])) / 2.0;
}

// The CPU model, in this executable.
class CpuWorkload final : public Workload {
public:
    explicit CpuWorkload(std::unique_ptr<kernels::Model> model) : m_model(std::move(model)) {}
    void prepare() override { m_model->prepare(); }
    float step() override { return m_model->step(); }
    void setObserver(kernels::Observer* observer) override { m_model->setObserver(observer); }
    std::string deviceName() const override { return m_model->deviceName(); }
    std::string configJson() const override { return m_model->configJson(); }
    void synchronize() override {}

private:
    std::unique_ptr<kernels::Model> m_model;
};

// The CUDA plugin for this capture, or null for a CPU one. --backend cuda: the plugin first
// (so a missing or mismatched plugin is named even on a machine without a GPU), then the GPU.
// --backend auto: the driver first (no plugin is loaded on a machine without one), then the
// plugin; a GPU machine without a usable plugin captures on the CPU with a notice.
const CudaPluginApi* choosePlugin(const CaptureOptions& o)
{
    std::string why;
    if (o.backend == "cuda") {
        const CudaPluginApi* api = loadCudaPlugin(&why);
        if (!api)
            throw CaptureUnavailable("--backend cuda: " + why);
        if (!api->available(&why))
            throw CaptureUnavailable("--backend cuda: no usable GPU (" + why + ")");
        return api;
    }
    if (o.backend == "cpu")
        return nullptr;
    if (o.backend != "auto")
        throw CaptureUsageError("unknown --backend '" + o.backend + "' (auto, cuda, cpu)");
    if (!cudaDriverPresent(&why)) {
        if (o.notice)
            o.notice("capturing on the CPU: " + why);
        return nullptr;
    }
    const CudaPluginApi* api = loadCudaPlugin(&why);
    if (api && api->available(&why))
        return api;
    if (o.notice)
        o.notice("capturing on the CPU: " + why);
    return nullptr;
}

}  // namespace

CaptureResult runCapture(const CaptureOptions& o)
{
    if (o.steps < 1)
        throw CaptureUsageError("--steps must be at least 1");
    if (o.warmup < 0)
        throw CaptureUsageError("--warmup must not be negative");
    if (o.backend != "auto" && o.backend != "cuda" && o.backend != "cpu")
        throw CaptureUsageError("unknown --backend '" + o.backend + "' (auto, cuda, cpu)");
    if (o.trace && o.output.empty())
        throw CaptureUsageError("an output file is needed (-o FILE)");
    const CudaPluginApi* plugin = choosePlugin(o);
    bool cuda = plugin != nullptr;

    CaptureResult res;
    res.preset = o.preset.empty() ? (cuda ? "paper" : "small") : o.preset;
    kernels::ModelConfig config;
    try {
        config = kernels::resolveConfig(o.workload, res.preset, o.variant, o.overrides);
    } catch (const kernels::SizeError&) {
        throw;   // a size out of range: one line, exit 1 (not the usage text)
    } catch (const std::invalid_argument& e) {
        throw CaptureUsageError(e.what());
    }
    config.backend = cuda ? kernels::BackendKind::Cuda : kernels::BackendKind::Cpu;
    config.seed = o.seed;
    std::unique_ptr<Workload> model;
    if (cuda) {
        std::string error;
        bool usage = false;
        model.reset(plugin->createWorkload(config, &error, &usage));
        if (!model && usage)
            throw CaptureUsageError(error);
        if (!model)
            throw kernels::DeviceError(error);
    } else {
        try {
            model = std::make_unique<CpuWorkload>(kernels::Model::create(config));
        } catch (const kernels::SizeError&) {
            throw;
        } catch (const std::invalid_argument& e) {
            throw CaptureUsageError(e.what());
        }
    }
    res.backend = cuda ? "cupti" : "cpu";

    SignalGuard signals(o.installSignalHandlers);
    model->prepare();
    for (int i = 0; i < o.warmup && !g_stop; ++i)
        model->step();

    if (!o.trace) {
        res.device = model->deviceName();
        for (int i = 0; i < o.steps && !g_stop; ++i) {
            int64_t t0 = wallNs();
            res.lastLoss = model->step();
            res.stepWallNs.push_back(wallNs() - t0);
            ++res.stepsDone;
        }
        res.status = g_stop ? "interrupted" : "complete";
        res.medianStepNs = median(res.stepWallNs);
        return res;
    }

    // Open the output only now: a bad configuration never touches the file.
    int64_t openStart = wallNs();
    Database db(o.output, OpenMode::ReadWrite);
    Writer writer(db);
    RunInfo info;
    info.name = o.name.empty() ? o.workload + "-" + o.variant + "-" + res.preset : o.name;
    info.workload = o.workload;
    info.variant = o.variant;
    info.preset = res.preset;
    info.configJson = model->configJson();
    info.backend = res.backend;
    info.startedAt = isoUtcNow();
    DeviceInfo device;
    if (cuda) {
        std::string error;
        if (!plugin->deviceInfo(0, &device, &error))
            throw std::runtime_error(error);
    }
    if (!cuda) {
        device.id = 0;
        device.name = "CPU: " + CpuTracer::cpuModelName();
        device.propertiesJson = CpuTracer::cpuPropertiesJson();
    }
    info.device = device.name;
    info.devicePropertiesJson = device.propertiesJson;
    res.device = device.name;

    int64_t started = 0, ended = 0, closeStart = 0;
    bool interrupted = false;
    std::string failure;   // set when a step failed: the run is kept and marked failed
    std::vector<std::pair<std::string, std::string>> tracerMetadata;
    {
        RecordSink sink(writer);
        // Declared after the sink, so destroyed before it: nothing a tracer hands over at its
        // end (CUPTI's last buffers) can reach a destroyed sink, whatever way this block is left.
        std::unique_ptr<Tracer> tracer;
        if (o.tracerFactory)
            tracer = o.tracerFactory(sink, &g_stop);
        if (!tracer && cuda) {
            std::string error;
            tracer.reset(plugin->createTracer(sink, &g_stop, &error));
            if (!tracer)
                throw std::runtime_error(error);
        }
        if (!tracer)
            tracer = std::make_unique<CpuTracer>(sink, &g_stop);
        info.originNs = tracer->origin();
        writer.beginRun(info);
        writer.setMetadata("steps", std::to_string(o.steps));
        writer.setMetadata("warmup", std::to_string(o.warmup));
        writer.setMetadata("seed", std::to_string(o.seed));
        for (const auto& [key, value] : o.metadata)
            writer.setMetadata(key, value);
        sink.device(device);

        model->setObserver(tracer.get());
        res.fileOverheadNs += wallNs() - openStart;
        started = tracer->now();
        for (int i = 0; i < o.steps; ++i) {
            if (g_stop) {
                interrupted = true;
                break;
            }
            int64_t t0 = wallNs();
            try {
                res.lastLoss = model->step();
            } catch (const CaptureInterrupted&) {
                interrupted = true;
            } catch (const std::exception& e) {
                // A device error (failed launch, illegal address, out of memory) or any error of
                // the workload: keep what was recorded so far, mark the run failed below.
                failure = e.what();
            }
            if (!failure.empty())
                break;
            if (interrupted)
                model->synchronize();
            tracer->endStep();
            sink.commit();   // write and commit the step's records now: a kill loses at most the next step
            if (interrupted || sink.failed())
                break;
            res.stepWallNs.push_back(wallNs() - t0);
            ++res.stepsDone;
        }
        model->setObserver(nullptr);
        tracer->closeOpenScopes();
        ended = tracer->now();
        closeStart = wallNs();
        try {
            tracer->stop();
        } catch (const std::exception& e) {
            if (failure.empty())
                failure = e.what();
        }
        res.droppedRecords = tracer->droppedRecords();
        res.kernels = sink.activities();
        tracerMetadata = tracer->runMetadata();
        tracer.reset();
        sink.close();   // throws when the writer failed (disk full, ...)
    }
    for (const auto& [key, value] : tracerMetadata)
        writer.setMetadata(key, value);
    writer.setDroppedRecords(res.droppedRecords);
    res.runId = info.id = writer.runId();
    if (!failure.empty()) {
        std::string line = failure.substr(0, failure.find('\n'));
        writer.setMetadata("error", line);
        writer.finishRun(RunStatus::Failed, ended - started);
        throw CaptureFailed(line + " (run " + std::to_string(res.runId) + " kept, marked failed, after " +
                                std::to_string(res.stepsDone) + " of " + std::to_string(o.steps) + " steps)",
                            res.runId);
    }
    writer.finishRun(interrupted ? RunStatus::Interrupted : RunStatus::Complete, ended - started);
    res.fileOverheadNs += wallNs() - closeStart;
    res.status = interrupted ? "interrupted" : "complete";
    res.medianStepNs = median(res.stepWallNs);
    return res;
}

}  // namespace wt::capture
