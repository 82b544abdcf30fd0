#include "grouping.h"

#include <algorithm>
#include <map>

namespace wt {

std::optional<GroupBy> groupByFromString(std::string_view text)
{
    if (text == "scope") return GroupBy::Scope;
    if (text == "layer") return GroupBy::Layer;
    if (text == "phase") return GroupBy::Phase;
    if (text == "op") return GroupBy::Op;
    if (text == "kernel") return GroupBy::Kernel;
    if (text == "kind") return GroupBy::Kind;
    if (text == "category") return GroupBy::Category;
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
    case GroupBy::Category: return "category";
    }
    return "layer";
}

std::optional<GroupBy> drillTarget(GroupBy groupBy)
{
    switch (groupBy) {
    case GroupBy::Phase: return GroupBy::Layer;
    case GroupBy::Layer: return GroupBy::Op;
    case GroupBy::Op: return GroupBy::Kernel;
    case GroupBy::Category: return GroupBy::Kernel;
    default: return std::nullopt;
    }
}

namespace {

bool isScopeGrouping(GroupBy g)
{
    return g != GroupBy::Kernel && g != GroupBy::Kind && g != GroupBy::Category;
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
    if (!tree.hasLevel("layer"))   // imports: the range at the layer depth below the steps
        return tree.ancestorBelowSteps(scopeId, tree.layerDepth());
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
        const bool layer = groupBy == GroupBy::Layer;
        const char* lvl = layer ? "layer" : "phase";
        int64_t a = 0;
        if (!tree.hasLevel(lvl))   // imports: ranges below the steps play the part (the layer rule)
            a = tree.ancestorBelowSteps(scopeId, layer ? tree.layerDepth() : 1);
        else
            a = tree.ancestorAtLevel(scopeId, lvl);
        return a ? tree.name(a) : std::string(layer ? kNoLayer : kNoPhase);
    }
    case GroupBy::Op: {
        int64_t a = tree.hasLevel("op") ? tree.ancestorAtLevel(scopeId, "op") : scopeId;
        if (!a)
            a = scopeId;
        return tree.isStep(a) ? std::string(kNoOp) : tree.name(a);
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
    if (groupBy == GroupBy::Category)
        return categoryKey(kind, nameId, tree, strings);
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

std::string categoryKey(ActivityKind kind, uint32_t nameId, const ScopeTree& tree, const Strings& strings)
{
    return tree.categories().categoryOf(kind, nameOf(nameId, strings));
}

std::vector<std::string> laneLabels(const ScopeTree& tree)
{
    // Per depth: node count per level name.
    std::vector<std::map<std::string, int64_t>> counts(size_t(std::max(tree.maxDepth(), 0)));
    for (const ScopeNode& n : tree.nodes())
        if (n.depth >= 1 && size_t(n.depth) <= counts.size())
            ++counts[size_t(n.depth) - 1][tree.level(n.id)];
    auto pretty = [](const std::string& level) { return level == "nvtx" ? std::string("NVTX") : level; };
    std::vector<std::string> labels;
    for (const auto& byLevel : counts) {
        std::vector<std::pair<int64_t, std::string>> order;
        for (const auto& [level, count] : byLevel)
            order.emplace_back(-count, level);
        std::sort(order.begin(), order.end());
        std::string label;
        // A step beside other ranges names the lane first: the steps are what a reader looks for.
        auto step = std::find_if(order.begin(), order.end(), [](const auto& o) { return o.second == "step"; });
        if (step != order.end())
            std::rotate(order.begin(), step, step + 1);
        for (size_t i = 0; i < order.size() && i < 2; ++i)
            label += (i ? " / " : "") + pretty(order[i].second.empty() ? std::string("scope") : order[i].second);
        labels.push_back(label.empty() ? std::string("scope") : label);
    }
    // The same label on several depths: number them, 1 = the shallowest.
    std::map<std::string, int> seen, total;
    for (const std::string& l : labels)
        ++total[l];
    for (std::string& l : labels)
        if (total[l] > 1)
            l += " depth " + std::to_string(++seen[l]);
    return labels;
}

std::string laneLabel(const ScopeTree& tree, int depth)
{
    const std::vector<std::string> labels = laneLabels(tree);
    return depth >= 1 && size_t(depth) <= labels.size() ? labels[size_t(depth) - 1] : "depth " + std::to_string(depth);
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
        else if (f.first == GroupBy::Category)
            m_categoryFilter.push_back(f.second);
        else
            m_scopeFilter.push_back(f);
    }
}

int32_t Grouper::indexOf(ActivityKind kind, uint32_t node, uint32_t nameId)
{
    if (!countsKind(m_level.groupBy, kind) && m_categoryFilter.empty())
        return -1;
    const size_t slot = node == ScopeTree::kNoNode || node >= m_tree.nodes().size() ? 0 : size_t(node) + 1;
    int32_t& byNode = m_node[slot];
    if (byNode == kUnknown)
        byNode = computeNode(node);
    if (byNode == -1)
        return -1;
    // Categories first: a category filter also holds memcpy and memset (see countsKind).
    if (!m_categoryFilter.empty() || m_level.groupBy == GroupBy::Category) {
        const int32_t c = categoryOf(kind, nameId);
        for (const std::string& want : m_categoryFilter)
            if (want != m_categories[size_t(c)])
                return -1;
        if (m_level.groupBy == GroupBy::Category) {
            int32_t& g = m_categoryGroup[size_t(c)];
            if (g < 0)
                g = groupIndex(m_categories[size_t(c)]);
            return g;
        }
    }
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

int32_t Grouper::categoryOf(ActivityKind kind, uint32_t nameId)
{
    std::vector<int32_t>& cache = kind == ActivityKind::Kernel ? m_kernelCategory : m_otherCategory;
    if (nameId >= cache.size())
        cache.resize(size_t(nameId) + 1, kUnknown);
    int32_t& c = cache[nameId];
    if (c == kUnknown) {
        // Memcpy and memset share a cache: the built-in rule and user rules see only the name
        // and "not a kernel", the same for both kinds.
        const std::string category = categoryKey(kind, nameId, m_tree, m_strings);
        auto it = std::find(m_categories.begin(), m_categories.end(), category);
        c = int32_t(it - m_categories.begin());
        if (it == m_categories.end()) {
            m_categories.push_back(category);
            m_categoryGroup.push_back(-1);
        }
    }
    return c;
}

int32_t Grouper::groupIndex(const std::string& key)
{
    auto [it, added] = m_index.emplace(key, int32_t(m_keys.size()));
    if (added)
        m_keys.push_back(key);
    return it->second;
}

}  // namespace wt
