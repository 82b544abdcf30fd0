// A CUDA plugin of another ABI (tst_cudaplugin): the loader must refuse it in one line
// before it reads the entry points.
#include "capture/cudaplugin.h"

extern "C" __attribute__((visibility("default"))) uint32_t wt_cuda_plugin_abi(void)
{
    return wt::capture::kCudaPluginAbi + 1000;
}
extern "C" __attribute__((visibility("default"))) const wt::capture::CudaPluginApi* wt_cuda_plugin_api(void)
{
    return nullptr;
}
