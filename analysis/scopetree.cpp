#include "scopetree.h"

#include "storage/reader.h"

#include <algorithm>

namespace wt {

ScopeTree::ScopeTree(const std::vector<ScopeNode>& nodes, const std::unordered_map<uint32_t, std::string>& strings)
    : m_nodes(nodes)
{
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        m_index.emplace(m_nodes[i].id, i);
        m_maxDepth = std::max(m_maxDepth, m_nodes[i].depth);
        for (uint32_t id : {m_nodes[i].nameId, m_nodes[i].levelId})
            if (auto it = strings.find(id); it != strings.end())
                m_names.emplace(id, it->second);
    }
}

ScopeTree ScopeTree::load(const Reader& reader, int64_t runId)
{
    return ScopeTree(reader.scopes(runId), reader.strings());
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
    int64_t id = depth > 0 ? ancestorAtDepth(scopeId, depth) : scopeId;
    std::vector<int64_t> chain;
    while (id != 0 && contains(id)) {
        chain.push_back(id);
        id = node(id).parentId;
    }
    std::string out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (!out.empty())
            out += '/';
        out += name(*it);
    }
    return out;
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

bool ScopeTree::hasLevel(const std::string& lvl) const
{
    for (const ScopeNode& n : m_nodes) {
        auto it = m_names.find(n.levelId);
        if (it != m_names.end() && it->second == lvl)
            return true;
    }
    return false;
}

}  // namespace wt
