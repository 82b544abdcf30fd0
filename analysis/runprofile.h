// What every figure of one run starts from, read once per run: the run's description and
// summary, its scope tree, the interned strings, and the stored per-(scope, name, kind) totals.
// The GUI loads one with the run (RunData keeps it) and the CLI one per command; nothing reads
// the tree or the totals again. Captures of bundled workloads also bring their launches' FLOPs
// and bytes (LaunchCost), which the breakdown sums per group. The grouping settings stored with the run (metadata
// kLayerDepthKey, kCategoriesKey; written by `wheretime import --layer-depth/--categories`) are
// applied to the tree here.
#pragma once

#include "analysis/grouping.h"
#include "analysis/scopetree.h"
#include "storage/types.h"

#include <memory>
#include <vector>

namespace wt {

class Reader;

// Run metadata keys of the grouping settings.
inline constexpr const char* kLayerDepthKey = "analysis.layer_depth";    // integer >= 1
inline constexpr const char* kCategoriesKey = "analysis.categories";     // rules text (kernelcategory.h)

// What the workload knew about one launch (storage's LaunchFeatures), reduced to what the
// breakdown sums per group: the launch's innermost scope, name and kind, its FLOPs and bytes.
struct LaunchCost {
    int64_t scopeInstanceId = 0;  // innermost scope instance (storage id), 0 = none
    int64_t scopeId = 0;          // its scope node, 0 = none
    uint32_t nameId = 0;          // the op's name (its kernels' name on the CPU)
    ActivityKind kind = ActivityKind::Kernel;
    double flops = 0;
    double bytes = 0;             // read + written
    int64_t m = 0, n = 0, k = 0;  // GEMM shape, 0 for other launches
};

// The activity kind of a launch kind ("memcpy", "memset"; "kernel" and "gemm" are kernels).
ActivityKind activityKindOfLaunch(const std::string& launchKind);

struct RunProfile {
    RunInfo run;
    std::vector<DeviceInfo> devices;
    ScopeTree tree;
    Strings strings;
    std::vector<TotalRow> totals;
    // One per launch of a capture of a bundled workload (schema 2); empty for imports and
    // older files, whose groups then have no FLOPs or bytes.
    std::vector<LaunchCost> launchCosts;

    // Throws wt::StorageError (one-line reason) for a missing run or a bad file.
    // `categories` replaces the rules stored with the run (the CLI's --categories FILE).
    static std::shared_ptr<const RunProfile> load(const Reader& reader, int64_t runId, CategoriesPtr categories = nullptr);
    const std::string& string(uint32_t id) const;   // empty when unknown
};

// The settings stored with a run, applied to a tree (RunProfile::load and compare's loader
// call it). A stored rules text that does not parse is ignored (the built-in rules apply).
void applyRunSettings(ScopeTree& tree, const std::vector<std::pair<std::string, std::string>>& metadata);
// A copy of a profile with another layer depth (the GUI's layer-depth control; the figures
// computed from it follow the layer rule at that depth). depth < 1 counts as 1.
std::shared_ptr<const RunProfile> withLayerDepth(const RunProfile& profile, int depth);

}  // namespace wt
