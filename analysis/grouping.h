// How activities fall into groups: the group-by kinds, the layer rule, group keys, drill-down
// targets and filters. Every breakdown, range figure and timeline group selection goes through
// this file, so the pie, the table, the details panel, the timeline's layer colours and
// `wheretime stats` can never group one kernel differently.
//
// The layer rule: a kernel's layer is the name of its ancestor-or-self scope at level "layer";
// in a run without any "layer" level (an Nsight NVTX or a Kineto import) the top-level scope
// it runs under plays the part (the same for phases; an op is the scope at level "op", else
// the innermost scope). Kernels without a scope are "(no scope)"; a kernel with a scope but
// no layer ancestor in a run that has layers is "(no layer)".
#pragma once

#include "analysis/scopetree.h"
#include "storage/types.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wt {

enum class GroupBy { Scope, Layer, Phase, Op, Kernel, Kind };
std::optional<GroupBy> groupByFromString(std::string_view text);
std::string_view toString(GroupBy groupBy);
// The grouping a group of `groupBy` drills into (phase -> layer -> op -> kernel), nullopt at
// the bottom (kernel names are leaves; kinds and scope paths do not drill).
std::optional<GroupBy> drillTarget(GroupBy groupBy);

inline constexpr const char* kNoScope = "(no scope)";
inline constexpr const char* kNoLayer = "(no layer)";
inline constexpr const char* kNoPhase = "(no phase)";
inline constexpr int kDefaultScopeDepth = 3;

using Strings = std::unordered_map<uint32_t, std::string>;
using GroupFilter = std::pair<GroupBy, std::string>;

// One drill-down level: what to group by, and the filters of the levels above it, e.g.
// {Op, {{Layer, "softmax"}}}. A Scope filter's depth is that of its path ({Scope,
// "step/backward"} compares paths at depth 2), so drilling by scope path works level by level.
struct GroupLevel {
    GroupBy groupBy = GroupBy::Layer;
    std::vector<GroupFilter> filters;
    int depth = kDefaultScopeDepth;   // for GroupBy::Scope
    bool operator==(const GroupLevel&) const = default;
};

// The key of a scope node (0 = no scope) under a scope grouping (Scope, Layer, Phase, Op).
std::string scopeGroupKey(const ScopeTree& tree, int64_t scopeId, GroupBy groupBy, int depth = kDefaultScopeDepth);
// The layer rule (above): the layer key of a scope node.
inline std::string layerKey(const ScopeTree& tree, int64_t scopeId)
{
    return scopeGroupKey(tree, scopeId, GroupBy::Layer);
}
// The scope node that names a node's layer: the "layer" ancestor, or in runs without layers
// the top-level ancestor; 0 when the node has no layer (or is 0).
int64_t layerScope(const ScopeTree& tree, int64_t scopeId);
// The key of an activity's group: a scope key, the kernel name, or the kind.
std::string groupKey(ActivityKind kind, int64_t scopeId, uint32_t nameId, const ScopeTree& tree, const Strings& strings,
                     GroupBy groupBy, int depth = kDefaultScopeDepth);
// True when filters let the activity through.
bool passesFilters(ActivityKind kind, int64_t scopeId, uint32_t nameId, const ScopeTree& tree, const Strings& strings,
                   const std::vector<GroupFilter>& filters);
// Whether a grouping counts an activity kind at all: kind groupings every activity, the rest
// only kernels.
inline bool countsKind(GroupBy groupBy, ActivityKind kind)
{
    return groupBy == GroupBy::Kind || kind == ActivityKind::Kernel;
}
// The name the tables show for a key: the last path component for scope paths, else the key.
std::string groupName(GroupBy groupBy, const std::string& key);

// Group indices of activities at one level, for millions of lookups: the scope part is cached
// per tree node (ScopeTree::indexOf positions), the name part per string id, so an activity
// costs a few array reads. Keys come from groupKey and filters from passesFilters.
class Grouper {
public:
    Grouper(const ScopeTree& tree, const Strings& strings, const GroupLevel& level);

    // Group index of an activity (node = tree position or ScopeTree::kNoNode), -1 when the
    // level's filters (or its kinds) exclude it.
    int32_t indexOf(ActivityKind kind, uint32_t node, uint32_t nameId);
    int32_t indexOfScope(ActivityKind kind, int64_t scopeId, uint32_t nameId)
    {
        return indexOf(kind, m_tree.indexOf(scopeId), nameId);
    }
    const std::vector<std::string>& keys() const { return m_keys; }   // group index -> key
    const GroupLevel& level() const { return m_level; }

private:
    static constexpr int32_t kUnknown = -2;
    int32_t computeNode(uint32_t node);
    int32_t computeName(uint32_t nameId);
    int32_t groupIndex(const std::string& key);

    const ScopeTree& m_tree;
    const Strings& m_strings;
    GroupLevel m_level;
    std::vector<int32_t> m_node;   // [0] = no scope, [n + 1] = node n
    std::vector<int32_t> m_name;
    std::vector<std::string> m_nameFilter;
    std::vector<std::string> m_kindFilter;
    std::vector<GroupFilter> m_scopeFilter;
    std::unordered_map<std::string, int32_t> m_index;
    std::vector<std::string> m_keys;
};

}  // namespace wt
