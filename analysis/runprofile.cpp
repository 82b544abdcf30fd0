#include "runprofile.h"

#include "storage/reader.h"

#include <charconv>
#include <unordered_map>

namespace wt {

std::shared_ptr<const RunProfile> RunProfile::load(const Reader& reader, int64_t runId, CategoriesPtr categories)
{
    auto p = std::make_shared<RunProfile>();
    p->run = reader.run(runId);
    p->devices = reader.devices(runId);
    p->strings = reader.strings();
    p->tree = ScopeTree(reader.scopes(runId), p->strings);
    applyRunSettings(p->tree, reader.metadata(runId));
    if (categories)
        p->tree.setCategories(std::move(categories));
    p->totals = reader.totals(runId);
    const std::vector<LaunchFeatures> launches = reader.launches(runId);
    if (!launches.empty()) {
        std::unordered_map<int64_t, int64_t> scopeOf;
        for (const ScopeInstance& si : reader.scopeInstances(runId))
            scopeOf.emplace(si.id, si.scopeId);
        p->launchCosts.reserve(launches.size());
        for (const LaunchFeatures& l : launches) {
            LaunchCost c;
            c.scopeInstanceId = l.scopeInstanceId;
            c.m = l.m;
            c.n = l.n;
            c.k = l.k;
            if (auto it = scopeOf.find(l.scopeInstanceId); it != scopeOf.end())
                c.scopeId = it->second;
            c.nameId = l.nameId;
            c.kind = activityKindOfLaunch(l.kind);
            c.flops = l.flops;
            c.bytes = l.bytesRead + l.bytesWritten;
            p->launchCosts.push_back(c);
        }
    }
    return p;
}

ActivityKind activityKindOfLaunch(const std::string& launchKind)
{
    if (launchKind == "memcpy")
        return ActivityKind::Memcpy;
    if (launchKind == "memset")
        return ActivityKind::Memset;
    return ActivityKind::Kernel;
}

void applyRunSettings(ScopeTree& tree, const std::vector<std::pair<std::string, std::string>>& metadata)
{
    for (const auto& [key, value] : metadata) {
        if (key == kLayerDepthKey) {
            int depth = 1;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), depth);
            if (ec == std::errc() && end == value.data() + value.size())
                tree.setLayerDepth(depth);
        } else if (key == kCategoriesKey) {
            try {
                tree.setCategories(std::make_shared<const KernelCategories>(KernelCategories::parse(value, "stored rules")));
            } catch (const CategoryRulesError&) {
                // A damaged stored text: the built-in rules still give every kernel a category.
            }
        }
    }
}

std::shared_ptr<const RunProfile> withLayerDepth(const RunProfile& profile, int depth)
{
    auto p = std::make_shared<RunProfile>(profile);
    p->tree.setLayerDepth(depth);
    return p;
}

const std::string& RunProfile::string(uint32_t id) const
{
    static const std::string none;
    auto it = strings.find(id);
    return it == strings.end() ? none : it->second;
}

}  // namespace wt
