#include "scopetree.h"

#include "storage/reader.h"

#include <algorithm>

namespace wt {

ScopeTree::ScopeTree(const std::vector<ScopeNode>& nodes, const std::unordered_map<uint32_t, std::string>& strings)
    : m_nodes(nodes)
{
    std::stable_sort(m_nodes.begin(), m_nodes.end(), [](const ScopeNode& a, const ScopeNode& b) { return a.id < b.id; });
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        m_index.emplace(m_nodes[i].id, i);
        m_maxDepth = std::max(m_maxDepth, m_nodes[i].depth);
        for (uint32_t id : {m_nodes[i].nameId, m_nodes[i].levelId})
            if (auto it = strings.find(id); it != strings.end())
                m_names.emplace(id, it->second);
        if (auto it = strings.find(m_nodes[i].levelId); it != strings.end())
            m_levels.insert(it->second);
    }
    for (const ScopeNode& n : m_nodes)
        m_maxDepthBelowSteps = std::max(m_maxDepthBelowSteps, depthBelowSteps(n.id));
    m_paths = ScopePaths(m_nodes, [this](uint32_t id) {
        auto it = m_names.find(id);
        return it == m_names.end() ? std::string() : it->second;
    });
}

ScopeTree ScopeTree::load(const Reader& reader, int64_t runId)
{
    return ScopeTree(reader.scopes(runId), reader.strings());
}

uint32_t ScopeTree::indexOf(int64_t scopeId) const
{
    auto it = m_index.find(scopeId);
    return it == m_index.end() ? kNoNode : uint32_t(it->second);
}

const std::string& ScopeTree::name(int64_t scopeId) const
{
    static const std::string none;
    auto it = m_names.find(node(scopeId).nameId);
    return it == m_names.end() ? none : it->second;
}

const std::string& ScopeTree::level(int64_t scopeId) const
{
    static const std::string none;
    auto it = m_names.find(node(scopeId).levelId);
    return it == m_names.end() ? none : it->second;
}

std::string ScopeTree::path(int64_t scopeId, int depth) const
{
    return m_paths.path(depth > 0 ? ancestorAtDepth(scopeId, depth) : scopeId);
}

int64_t ScopeTree::ancestorAtDepth(int64_t scopeId, int depth) const
{
    int64_t id = scopeId;
    while (id != 0 && contains(id) && node(id).depth > depth)
        id = node(id).parentId;
    return id;
}

int64_t ScopeTree::ancestorAtLevel(int64_t scopeId, const std::string& lvl) const
{
    for (int64_t id = scopeId; id != 0 && contains(id); id = node(id).parentId)
        if (level(id) == lvl)
            return id;
    return 0;
}

int ScopeTree::depthBelowSteps(int64_t scopeId) const
{
    int depth = 0;
    int guard = 0;   // the reader refuses cycles; this keeps a hand-made tree finite too
    for (int64_t id = scopeId; id != 0 && contains(id) && guard++ <= kMaxScopeDepth; id = node(id).parentId)
        if (level(id) != "step")
            ++depth;
    return depth;
}

int64_t ScopeTree::ancestorBelowSteps(int64_t scopeId, int depth) const
{
    if (scopeId == 0 || !contains(scopeId))
        return 0;
    int d = depthBelowSteps(scopeId);
    int64_t id = scopeId;
    // Up to the first non-step scope at or above the wanted depth.
    while (id != 0 && contains(id) && (isStep(id) || d > depth)) {
        if (!isStep(id))
            --d;
        id = node(id).parentId;
    }
    return id != 0 && contains(id) ? id : 0;
}

const KernelCategories& ScopeTree::categories() const
{
    static const KernelCategories builtin;
    return m_categories ? *m_categories : builtin;
}

bool ScopeTree::hasLevel(const std::string& lvl) const
{
    return m_levels.count(lvl) != 0;
}

}  // namespace wt
