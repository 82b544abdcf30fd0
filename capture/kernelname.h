// Readable kernel names for GPU records. CUPTI reports a kernel by its mangled symbol
// (`_ZN2wt7kernels13forEachKernelIZ...`): our own kernels (the launch templates of
// kernels/launch.h, namespace wt::kernels) take the name of the op that launched them, the
// name the CPU tracer records for the same op, so CPU and GPU runs of one workload compare by
// name; library kernels (cuBLAS, CUTLASS) take their demangled name; names that are not
// mangled (`sm90_xmma_gemm_...`, `[CUDA memcpy HtoD]`) stay as they are. The raw name is kept
// beside the readable one (see CuptiRecords::rawNames()).
#pragma once

#include <string>
#include <string_view>

namespace wt::capture {

// The demangled C++ name, or `raw` itself when it is not a mangled name.
std::string demangle(std::string_view raw);
// Whether the symbol is one of ours (namespace wt::kernels), mangled or not.
bool isOwnKernel(std::string_view raw);
// The name stored for a kernel: `opName` for our own kernels when it is known, else demangle(raw).
std::string readableKernelName(std::string_view raw, std::string_view opName);

}  // namespace wt::capture
