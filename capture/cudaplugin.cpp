// Finding and loading the CUDA plugin (see cudaplugin.h). The executable links no CUDA
// library: the driver is probed through dlopen("libcuda.so.1") and the plugin is dlopen'ed.
#include "cudaplugin.h"

#include "capture/recordsink.h"
#include "kernels/model.h"
#include "wheretime_config.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <mutex>
#include <sys/stat.h>

namespace wt::capture {

namespace {

std::string exeDir()
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return {};
    std::string p(buf, size_t(n));
    auto slash = p.rfind('/');
    return slash == std::string::npos ? std::string() : p.substr(0, slash);
}

bool isFile(const std::string& path)
{
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string firstLine(const char* text)
{
    std::string s = text ? text : "unknown error";
    return s.substr(0, s.find('\n'));
}

struct Loaded {
    std::once_flag once;
    const CudaPluginApi* api = nullptr;
    std::string error;
    bool mapped = false;
};

Loaded& loaded()
{
    static Loaded l;
    return l;
}

}  // namespace

std::vector<std::string> cudaPluginDirs()
{
    if (const char* env = std::getenv("WHERETIME_PLUGIN_DIR"); env && *env)
        return {env};
    std::vector<std::string> dirs;
    std::string exe = exeDir();
    if (!exe.empty()) {
        dirs.push_back(exe);
        dirs.push_back(exe + "/../lib/wheretime");
        dirs.push_back(exe + "/../lib");
    }
    dirs.push_back(WHERETIME_PLUGIN_INSTALL_DIR);
    return dirs;
}

std::string findCudaPlugin()
{
    for (const std::string& d : cudaPluginDirs()) {
        std::string p = d + "/" + kCudaPluginFile;
        if (isFile(p))
            return p;
    }
    return {};
}

const CudaPluginApi* loadCudaPlugin(std::string* error)
{
    Loaded& l = loaded();
    std::call_once(l.once, [&l] {
        std::string path = findCudaPlugin();
        if (path.empty()) {
            std::string where;
            for (const std::string& d : cudaPluginDirs())
                where += (where.empty() ? "" : ", ") + d;
            l.error = std::string("the CUDA plugin ") + kCudaPluginFile + " is not installed (looked in " + where +
                      "; install the wheretime-cuda package or set WHERETIME_PLUGIN_DIR)";
            return;
        }
        // RTLD_LOCAL: the plugin's copies of the kernels and tracer code stay its own.
        void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            l.error = "cannot load the CUDA plugin " + path + ": " + firstLine(dlerror()) +
                      " (it needs the CUDA runtime, cuBLAS and CUPTI: see the wheretime-cuda package)";
            return;
        }
        l.mapped = true;
        auto abiFn = reinterpret_cast<uint32_t (*)()>(dlsym(h, "wt_cuda_plugin_abi"));
        auto apiFn = reinterpret_cast<const CudaPluginApi* (*)()>(dlsym(h, "wt_cuda_plugin_api"));
        if (!abiFn || !apiFn) {
            l.error = path + " is not a wheretime CUDA plugin (no wt_cuda_plugin_abi)";
            return;
        }
        uint32_t abi = abiFn();
        if (abi != kCudaPluginAbi) {
            l.error = "the CUDA plugin " + path + " has ABI " + std::to_string(abi) + ", this wheretime " WHERETIME_VERSION
                      " needs ABI " + std::to_string(kCudaPluginAbi) + " (install the wheretime-cuda package of the same version)";
            return;
        }
        const CudaPluginApi* api = apiFn();
        if (!api || api->abi != kCudaPluginAbi || api->modelConfigSize != sizeof(kernels::ModelConfig) ||
            api->deviceInfoSize != sizeof(DeviceInfo) || api->recordSinkSize != sizeof(RecordSink)) {
            l.error = "the CUDA plugin " + path + " was built from other sources than this wheretime " WHERETIME_VERSION
                      " (layout mismatch; install the wheretime-cuda package of the same build)";
            return;
        }
        l.api = api;   // never unloaded: its objects may outlive any one capture
    });
    if (!l.api && error)
        *error = l.error;
    return l.api;
}

bool cudaPluginLoaded() { return loaded().mapped; }

bool cudaDriverPresent(std::string* reason)
{
    auto say = [&](std::string why) {
        if (reason)
            *reason = std::move(why);
        return false;
    };
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return say("no NVIDIA driver (libcuda.so.1 not found)");
    using InitFn = int (*)(unsigned);
    using CountFn = int (*)(int*);
    auto init = reinterpret_cast<InitFn>(dlsym(h, "cuInit"));
    auto count = reinterpret_cast<CountFn>(dlsym(h, "cuDeviceGetCount"));
    if (!init || !count)
        return say("libcuda.so.1 has no cuInit");
    if (int rc = init(0); rc != 0)
        return say("the NVIDIA driver does not initialize (cuInit error " + std::to_string(rc) + ")");
    int n = 0;
    if (count(&n) != 0 || n == 0)
        return say("no CUDA device present");
    return true;   // libcuda stays loaded: the plugin's runtime uses it next
}

bool cudaUsable(std::string* reason)
{
    std::string why;
    bool ok = cudaDriverPresent(&why);
    if (ok) {
        const CudaPluginApi* api = loadCudaPlugin(&why);
        ok = api && api->available(&why);
    }
    if (!ok && reason)
        *reason = why;
    return ok;
}

}  // namespace wt::capture
