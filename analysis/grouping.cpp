#include "grouping.h"

#include <algorithm>

namespace wt {

std::optional<GroupBy> groupByFromString(std::string_view text)
{
    if (text == "scope") return GroupBy::Scope;
    if (text == "layer") return GroupBy::Layer;
    if (text == "phase") return GroupBy::Phase;
    if (text == "op") return GroupBy::Op;
    if (text == "kernel") return GroupBy::Kernel;
    if (text == "kind") return GroupBy::Kind;
    return std::nullopt;
}

std::string_view toString(GroupBy g)
{
    switch (g) {
    case GroupBy::Scope: return "scope";
    case GroupBy::Layer: return "layer";
    case GroupBy::Phase: return "phase";
    case GroupBy::Op: return "op";
    case GroupBy::Kernel: return "kernel";
    case GroupBy::Kind: return "kind";
    }
    return "layer";
}

std::optional<GroupBy> drillTarget(GroupBy groupBy)
{
    switch (groupBy) {
    case GroupBy::Phase: return GroupBy::Layer;
    case GroupBy::Layer: return GroupBy::Op;
    case GroupBy::Op: return GroupBy::Kernel;
    default: return std::nullopt;
    }
}

namespace {

bool isScopeGrouping(GroupBy g)
{
    return g != GroupBy::Kernel && g != GroupBy::Kind;
}

const std::string& nameOf(uint32_t id, const Strings& strings)
{
    static const std::string unnamed = "(unnamed)";
    auto it = strings.find(id);
    return it == strings.end() ? unnamed : it->second;
}

// A filter's depth: a scope path names its own ("step/backward" is the path at depth 2).
int filterDepth(const GroupFilter& f)
{
    return f.first == GroupBy::Scope ? int(std::count(f.second.begin(), f.second.end(), '/')) + 1 : kDefaultScopeDepth;
}

}  // namespace

int64_t layerScope(const ScopeTree& tree, int64_t scopeId)
{
    if (scopeId == 0 || !tree.contains(scopeId))
        return 0;
    if (!tree.hasLevel("layer"))   // imports: top-level ranges play the part of layers
        return tree.ancestorAtDepth(scopeId, 1);
    return tree.ancestorAtLevel(scopeId, "layer");
}

std::string scopeGroupKey(const ScopeTree& tree, int64_t scopeId, GroupBy groupBy, int depth)
{
    if (scopeId == 0 || !tree.contains(scopeId))
        return kNoScope;
    switch (groupBy) {
    case GroupBy::Scope:
        return tree.path(scopeId, depth);
    case GroupBy::Layer:
    case GroupBy::Phase: {
        const char* lvl = groupBy == GroupBy::Layer ? "layer" : "phase";
        if (!tree.hasLevel(lvl))   // imports: top-level ranges play the part of layers and phases
            return tree.path(scopeId, 1);
        int64_t a = tree.ancestorAtLevel(scopeId, lvl);
        return a ? tree.name(a) : std::string(groupBy == GroupBy::Layer ? kNoLayer : kNoPhase);
    }
    case GroupBy::Op: {
        int64_t a = tree.hasLevel("op") ? tree.ancestorAtLevel(scopeId, "op") : scopeId;
        return a ? tree.name(a) : tree.name(scopeId);
    }
    default:
        return {};
    }
}

std::string groupKey(ActivityKind kind, int64_t scopeId, uint32_t nameId, const ScopeTree& tree, const Strings& strings,
                     GroupBy groupBy, int depth)
{
    if (groupBy == GroupBy::Kernel)
        return nameOf(nameId, strings);
    if (groupBy == GroupBy::Kind)
        return std::string(toString(kind));
    return scopeGroupKey(tree, scopeId, groupBy, depth);
}

bool passesFilters(ActivityKind kind, int64_t scopeId, uint32_t nameId, const ScopeTree& tree, const Strings& strings,
                   const std::vector<GroupFilter>& filters)
{
    for (const GroupFilter& f : filters)
        if (groupKey(kind, scopeId, nameId, tree, strings, f.first, filterDepth(f)) != f.second)
            return false;
    return true;
}

std::string groupName(GroupBy groupBy, const std::string& key)
{
    const size_t slash = groupBy == GroupBy::Scope ? key.rfind('/') : std::string::npos;
    return slash == std::string::npos ? key : key.substr(slash + 1);
}

Grouper::Grouper(const ScopeTree& tree, const Strings& strings, const GroupLevel& level)
    : m_tree(tree), m_strings(strings), m_level(level), m_node(tree.nodes().size() + 1, kUnknown)
{
    for (const GroupFilter& f : level.filters) {
        if (f.first == GroupBy::Kernel)
            m_nameFilter.push_back(f.second);
        else if (f.first == GroupBy::Kind)
            m_kindFilter.push_back(f.second);
        else
            m_scopeFilter.push_back(f);
    }
}

int32_t Grouper::indexOf(ActivityKind kind, uint32_t node, uint32_t nameId)
{
    if (!countsKind(m_level.groupBy, kind))
        return -1;
    const size_t slot = node == ScopeTree::kNoNode || node >= m_tree.nodes().size() ? 0 : size_t(node) + 1;
    int32_t& byNode = m_node[slot];
    if (byNode == kUnknown)
        byNode = computeNode(node);
    if (byNode == -1)
        return -1;
    if (!m_nameFilter.empty() || m_level.groupBy == GroupBy::Kernel) {
        if (nameId >= m_name.size())
            m_name.resize(size_t(nameId) + 1, kUnknown);
        int32_t& byName = m_name[nameId];
        if (byName == kUnknown)
            byName = computeName(nameId);
        if (byName == -1)
            return -1;
        if (m_level.groupBy == GroupBy::Kernel)
            return byName;
    }
    if (!m_kindFilter.empty() || m_level.groupBy == GroupBy::Kind) {
        const std::string_view k = toString(kind);
        for (const std::string& want : m_kindFilter)
            if (want != k)
                return -1;
        if (m_level.groupBy == GroupBy::Kind)
            return groupIndex(std::string(k));
    }
    return byNode;
}

int32_t Grouper::computeNode(uint32_t node)
{
    const int64_t scopeId = node == ScopeTree::kNoNode || node >= m_tree.nodes().size() ? 0 : m_tree.nodes()[node].id;
    for (const GroupFilter& f : m_scopeFilter)
        if (scopeGroupKey(m_tree, scopeId, f.first, filterDepth(f)) != f.second)
            return -1;
    return isScopeGrouping(m_level.groupBy) ? groupIndex(scopeGroupKey(m_tree, scopeId, m_level.groupBy, m_level.depth)) : 0;
}

int32_t Grouper::computeName(uint32_t nameId)
{
    const std::string& name = nameOf(nameId, m_strings);
    for (const std::string& want : m_nameFilter)
        if (name != want)
            return -1;
    return m_level.groupBy == GroupBy::Kernel ? groupIndex(name) : 0;
}

int32_t Grouper::groupIndex(const std::string& key)
{
    auto [it, added] = m_index.emplace(key, int32_t(m_keys.size()));
    if (added)
        m_keys.push_back(key);
    return it->second;
}

}  // namespace wt
