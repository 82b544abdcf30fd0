// The entry points of the CUDA plugin libwheretime-cuda.so (see cudaplugin.h): the CUDA model
// (wt_kernels_cuda) behind the Workload interface, and the CUPTI tracer. Every failure is
// turned into a one-line error here, so no exception has to cross the interface on creation.
#include "capture/cudaplugin.h"

#include "capture/cuptitracer.h"
#include "capture/recordsink.h"
#include "kernels/model.h"

#include <cuda_runtime.h>

#include <stdexcept>

namespace wt::capture {
namespace {

class CudaWorkload final : public Workload {
public:
    explicit CudaWorkload(std::unique_ptr<kernels::Model> model) : m_model(std::move(model)) {}
    void prepare() override { m_model->prepare(); }
    float step() override { return m_model->step(); }
    void setObserver(kernels::Observer* observer) override { m_model->setObserver(observer); }
    std::string deviceName() const override { return m_model->deviceName(); }
    std::string configJson() const override { return m_model->configJson(); }
    void synchronize() override { cudaDeviceSynchronize(); }

private:
    std::unique_ptr<kernels::Model> m_model;
};

bool available(std::string* reason)
{
    if (kernels::cudaAvailable())
        return true;
    if (reason)
        *reason = kernels::cudaUnavailableReason();
    return false;
}

Workload* createWorkload(const kernels::ModelConfig& config, std::string* error, bool* usage)
{
    try {
        kernels::ModelConfig c = config;
        c.backend = kernels::BackendKind::Cuda;
        return new CudaWorkload(kernels::Model::create(c));
    } catch (const kernels::SizeError& e) {   // an error, not a usage mistake (kernels/model.h)
        *error = e.what();
        *usage = false;
    } catch (const std::invalid_argument& e) {
        *error = e.what();
        *usage = true;
    } catch (const std::exception& e) {
        *error = e.what();
        *usage = false;
    }
    return nullptr;
}

Tracer* createTracer(RecordSink& sink, const std::atomic<bool>* stop, std::string* error)
{
    try {
        return new CuptiTracer(sink, stop);
    } catch (const std::exception& e) {
        *error = e.what();
    }
    return nullptr;
}

bool deviceInfo(int device, DeviceInfo* info, std::string* error)
{
    try {
        *info = CuptiTracer::deviceInfo(device);
        return true;
    } catch (const std::exception& e) {
        *error = e.what();
    }
    return false;
}

const CudaPluginApi kApi{kCudaPluginAbi,
                         uint32_t(sizeof(kernels::ModelConfig)),
                         uint32_t(sizeof(DeviceInfo)),
                         uint32_t(sizeof(RecordSink)),
                         available,
                         createWorkload,
                         createTracer,
                         deviceInfo};

}  // namespace
}  // namespace wt::capture

extern "C" __attribute__((visibility("default"))) uint32_t wt_cuda_plugin_abi(void) { return wt::capture::kCudaPluginAbi; }
extern "C" __attribute__((visibility("default"))) const wt::capture::CudaPluginApi* wt_cuda_plugin_api(void)
{
    return &wt::capture::kApi;
}
