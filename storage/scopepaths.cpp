#include "scopepaths.h"

#include "reader.h"

#include <algorithm>

namespace wt {

ScopePaths::ScopePaths(const std::vector<ScopeNode>& nodes, const std::function<std::string(uint32_t)>& name)
{
    // Parents first (by depth), so one pass builds every path. A parent that is not in the
    // list (a damaged file) starts the path afresh rather than failing.
    std::vector<const ScopeNode*> order;
    order.reserve(nodes.size());
    for (const ScopeNode& n : nodes)
        order.push_back(&n);
    std::stable_sort(order.begin(), order.end(), [](const ScopeNode* a, const ScopeNode* b) { return a->depth < b->depth; });
    m_paths.reserve(nodes.size());
    for (const ScopeNode* n : order) {
        auto p = n->parentId != 0 ? m_paths.find(n->parentId) : m_paths.end();
        m_paths[n->id] = p != m_paths.end() ? p->second + "/" + name(n->nameId) : name(n->nameId);
    }
}

const std::string& ScopePaths::path(int64_t scopeId) const
{
    static const std::string none;
    auto it = m_paths.find(scopeId);
    return it == m_paths.end() ? none : it->second;
}

std::unordered_map<int64_t, std::string> scopeInstancePaths(const Reader& reader, int64_t runId)
{
    const ScopePaths paths(reader.scopes(runId), [&](uint32_t id) { return reader.string(id); });
    std::unordered_map<int64_t, std::string> out;
    for (const ScopeInstance& i : reader.scopeInstances(runId))
        out.emplace(i.id, paths.path(i.scopeId));
    return out;
}

}  // namespace wt
