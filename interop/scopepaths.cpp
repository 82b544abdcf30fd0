#include "scopepaths.h"

#include "storage/reader.h"

#include <algorithm>
#include <vector>

namespace wt::interop {

std::unordered_map<int64_t, std::string> scopeInstancePaths(const Reader& reader, int64_t runId)
{
    std::unordered_map<int64_t, std::string> nodePath;
    // Parents first (by depth), so one pass builds every path.
    std::vector<ScopeNode> nodes = reader.scopes(runId);
    std::stable_sort(nodes.begin(), nodes.end(), [](const ScopeNode& a, const ScopeNode& b) { return a.depth < b.depth; });
    for (const ScopeNode& n : nodes) {
        auto p = nodePath.find(n.parentId);
        const std::string& name = reader.string(n.nameId);
        nodePath[n.id] = (n.parentId != 0 && p != nodePath.end()) ? p->second + "/" + name : name;
    }
    std::unordered_map<int64_t, std::string> out;
    for (const ScopeInstance& i : reader.scopeInstances(runId))
        out.emplace(i.id, nodePath[i.scopeId]);
    return out;
}

}  // namespace wt::interop
