// A real CUPTI capture on a GPU (label gpu): kernels recorded and attributed to layer
// scopes, device properties stored, every kernel named readably (our kernels by their op,
// the same names as a CPU capture of the same workload; library kernels demangled; raw
// names in the run's metadata), nothing dropped or incomplete. Qt-free on purpose: it ships
// in the GPU bundle (scripts/gpu-bundle.sh) and runs on GPU machines without Qt. Exit 77
// (CTest: skipped) without a usable GPU.
#include "analysis/scopetree.h"
#include "capture/capture.h"
#include "capture/cudaplugin.h"
#include "capture/kernelname.h"
#include "kernels/backend.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "wheretime_config.h"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <unistd.h>
#include <unordered_map>

using namespace wt;

namespace {

int g_failures = 0;

void check(bool ok, const std::string& what)
{
    std::printf("%s: %s\n", ok ? "PASS" : "FAIL", what.c_str());
    if (!ok)
        ++g_failures;
}

std::string tempFile(const std::string& name)
{
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/wheretime-gpu-" + std::to_string(::getpid()) + "-" + name;
}

void removeFile(const std::string& f)
{
    for (const char* suffix : {"", "-wal", "-shm"})
        std::remove((f + suffix).c_str());
}

struct Captured {
    int64_t runId = 0, kernels = 0, dropped = 0;
    double underLayer = 0;
    std::set<std::string> names;
    std::unordered_map<std::string, std::string> meta;
    std::string properties;
};

Captured capture(const std::string& workload, const std::string& backend)
{
    std::string file = tempFile(workload + "-" + backend + ".wt");
    removeFile(file);
    capture::CaptureOptions o;
    o.workload = workload;
    o.preset = "tiny";
    o.backend = backend;
    o.steps = 2;
    o.output = file;
    auto res = capture::runCapture(o);
    Captured c;
    c.runId = res.runId;
    c.dropped = res.droppedRecords;
    Database db(file, OpenMode::ReadOnly);
    Reader r(db);
    RunInfo run = r.run(res.runId);
    c.kernels = run.kernels;
    c.properties = run.devicePropertiesJson;
    for (const auto& [k, v] : r.metadata(res.runId))
        c.meta[k] = v;
    ScopeTree tree = ScopeTree::load(r, res.runId);
    std::unordered_map<int64_t, int64_t> instScope;
    for (const ScopeInstance& si : r.scopeInstances(res.runId))
        instScope[si.id] = si.scopeId;
    int64_t all = 0, underLayer = 0;
    r.forEachActivity(res.runId, [&](const Activity& a) {
        if (a.kind != ActivityKind::Kernel)
            return true;
        c.names.insert(r.string(a.nameId));
        all += a.endNs - a.startNs;
        auto it = instScope.find(a.scopeInstanceId);
        if (it != instScope.end() && tree.ancestorAtLevel(it->second, "layer"))
            underLayer += a.endNs - a.startNs;
        return true;
    });
    c.underLayer = all ? double(underLayer) / double(all) : 0;
    removeFile(file);
    return c;
}

bool startsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

void checkWorkload(const std::string& workload)
{
    Captured gpu = capture(workload, "cuda");
    Captured cpu = capture(workload, "cpu");
    check(gpu.kernels > 20, workload + ": " + std::to_string(gpu.kernels) + " kernels recorded");
    check(gpu.properties.find("sm_count") != std::string::npos, workload + ": device properties stored");
    check(gpu.underLayer >= 0.999, workload + ": share of kernel time under a layer scope " + std::to_string(gpu.underLayer));
    check(gpu.dropped == 0, workload + ": dropped records " + std::to_string(gpu.dropped));
    check(gpu.meta["incomplete_records"] == "0", workload + ": incomplete records " + gpu.meta["incomplete_records"]);
    check(gpu.meta.count("kernel_raw_names") && gpu.meta["kernel_raw_names"].size() > 2,
          workload + ": raw kernel names kept in the run's metadata");
    // Every kernel readable: none mangled, none of ours left under its template name.
    for (const std::string& n : gpu.names)
        check(!startsWith(n, "_Z") && !capture::isOwnKernel(n), workload + ": readable kernel name '" + n + "'");
    // Our kernels carry the op names a CPU capture records (matrix products, copies and
    // fills are cuBLAS kernels and memcpy/memset records on the GPU).
    for (const std::string& n : cpu.names) {
        if (startsWith(n, "sgemm") || startsWith(n, "memcpy_") || startsWith(n, "memset_"))
            continue;
        check(gpu.names.count(n) == 1, workload + ": CPU kernel '" + n + "' also on the GPU");
    }
}

}  // namespace

int main()
{
    // The GPU capture goes through the CUDA plugin (beside this binary in the bundle, or
    // $WHERETIME_PLUGIN_DIR): no driver, no GPU or no plugin skips.
    std::string why;
    if (!capture::cudaUsable(&why)) {
        std::printf("SKIP: no usable GPU (%s)\n", why.c_str());
        return 77;
    }
    try {
        checkWorkload("gcn");
        checkWorkload("transformer");
    } catch (const std::exception& e) {
        std::printf("FAIL: %s\n", e.what());
        return 1;
    }
    std::printf("%s: %d failures\n", g_failures ? "FAILED" : "OK", g_failures);
    return g_failures ? 1 : 0;
}
