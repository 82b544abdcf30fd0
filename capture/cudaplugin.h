// The CUDA backend and the CUPTI tracer live in a plugin, libwheretime-cuda.so, that
// runCapture() loads (dlopen) only for a GPU capture; every other command of wheretime never
// maps a CUDA library. The plugin runs the model's steps on the GPU and records them with
// CUPTI; the executable keeps the capture loop, the record sink and storage, so the plugin
// holds no SQLite and writes only through the RecordSink it is given (its virtual methods).
//
// The interface is a versioned C++ one (same compiler and libstdc++ on both sides: they are
// built from one tree): the plugin exports two C symbols,
//   uint32_t wt_cuda_plugin_abi(void)                  kCudaPluginAbi of its build
//   const CudaPluginApi* wt_cuda_plugin_api(void)      the entry points, read only after
//                                                      the ABI and the layout sizes match
// Bump kCudaPluginAbi whenever CudaPluginApi, Workload, Tracer, RecordSink, ModelConfig or
// DeviceInfo change.
//
// Where it is looked for: $WHERETIME_PLUGIN_DIR only, when set; else beside the executable,
// then <exe>/../lib/wheretime, <exe>/../lib, and the install's library folder.
#pragma once

#include "storage/types.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wt::kernels {
class Observer;
struct ModelConfig;
}

namespace wt::capture {

class RecordSink;
class Tracer;

constexpr uint32_t kCudaPluginAbi = 1;
constexpr const char* kCudaPluginFile = "libwheretime-cuda.so";

// A model that runs steps on some device (the CPU model in the executable, the CUDA one in the
// plugin). step() throws on any failure of the workload or device (one-line what()).
class Workload {
public:
    virtual ~Workload() = default;
    virtual void prepare() = 0;
    virtual float step() = 0;
    virtual void setObserver(kernels::Observer* observer) = 0;
    virtual std::string deviceName() const = 0;
    virtual std::string configJson() const = 0;
    virtual void synchronize() = 0;   // waits for the device's queued work
};

struct CudaPluginApi {
    uint32_t abi;                     // kCudaPluginAbi
    uint32_t modelConfigSize;         // sizeof(kernels::ModelConfig) of the plugin's build
    uint32_t deviceInfoSize;          // sizeof(DeviceInfo)
    uint32_t recordSinkSize;          // sizeof(RecordSink)
    // True when the CUDA runtime answers and a device is present; else false and a reason.
    bool (*available)(std::string* reason);
    // The entry points below return null/false and set *error (one line) on failure;
    // *usage is set when the configuration is at fault (impossible sizes), not the device.
    Workload* (*createWorkload)(const kernels::ModelConfig& config, std::string* error, bool* usage);
    Tracer* (*createTracer)(RecordSink& sink, const std::atomic<bool>* stop, std::string* error);
    bool (*deviceInfo)(int device, DeviceInfo* info, std::string* error);
};

// The folders searched, in order (see above).
std::vector<std::string> cudaPluginDirs();
// The plugin's path, or "" when none of the folders has it.
std::string findCudaPlugin();
// Loads the plugin once (later calls return the same result) and checks its ABI. Null and a
// one-line *error when it is missing, cannot be loaded (e.g. no CUDA runtime) or mismatches.
const CudaPluginApi* loadCudaPlugin(std::string* error);
// Whether the plugin is mapped in this process (tests: commands other than capture must not).
bool cudaPluginLoaded();
// What `wheretime workloads` reports: the driver, then the plugin (loaded), then its GPU.
bool cudaUsable(std::string* reason);
// The driver, without the plugin: libcuda.so.1 loads, cuInit succeeds and a device is present.
// Cheap enough for --backend auto; never throws.
bool cudaDriverPresent(std::string* reason);

}  // namespace wt::capture

extern "C" {
uint32_t wt_cuda_plugin_abi(void);
const wt::capture::CudaPluginApi* wt_cuda_plugin_api(void);
}
