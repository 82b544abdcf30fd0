// How activities fall into groups: the group-by kinds, the layer rule, group keys, drill-down
// targets and filters. Every breakdown, range figure and timeline group selection goes through
// this file, so the pie, the table, the details panel, the timeline's layer colours and
// `wheretime stats` can never group one kernel differently.
//
// The layer rule: a kernel's layer is the name of its ancestor-or-self scope at level "layer".
// In a run without any "layer" level (an Nsight NVTX or a Kineto import) it is the scope at
// the run's layer depth (ScopeTree::layerDepth, default 1) counted below the steps: a step is
// never a layer, so in a trace with ProfilerStep#N ranges the layer is the range right below
// the step, and in one without steps the top-level range. Phases of such runs are the scopes
// at depth 1 below the steps. An op is the scope at level "op", else the innermost scope
// (never a step). Kernels without a scope are "(no scope)"; a kernel with a scope but no
// layer ancestor ("layer" level missing above it, or only steps above it) is "(no layer)".
//
// Categories (kernelcategory.h) group by the kind of work, from the kernel name: a category
// grouping counts every activity (memcpy and memset are "memory").
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

enum class GroupBy { Scope, Layer, Phase, Op, Kernel, Kind, Category };
std::optional<GroupBy> groupByFromString(std::string_view text);
std::string_view toString(GroupBy groupBy);
// The grouping a group of `groupBy` drills into (phase -> layer -> op -> kernel), nullopt at
// the bottom (kernel names are leaves; kinds and scope paths do not drill; a category drills
// into its kernel names).
std::optional<GroupBy> drillTarget(GroupBy groupBy);

inline constexpr const char* kNoScope = "(no scope)";
inline constexpr const char* kNoLayer = "(no layer)";
inline constexpr const char* kNoPhase = "(no phase)";
inline constexpr const char* kNoOp = "(no op)";
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
// Whether a grouping counts an activity kind at all: kind and category groupings every
// activity, the rest only kernels (a Grouper whose filters name a category counts every kind
// too, so the "memory" category drills into memcpy and memset names).
inline bool countsKind(GroupBy groupBy, ActivityKind kind)
{
    return groupBy == GroupBy::Kind || groupBy == GroupBy::Category || kind == ActivityKind::Kernel;
}
// The category of an activity under the tree's rules (ScopeTree::categories()).
std::string categoryKey(ActivityKind kind, uint32_t nameId, const ScopeTree& tree, const Strings& strings);

// The label of the timeline lane that shows the scopes at `depth` (1 = top level): the level
// of its scopes ("step", "phase", "layer", "op", "NVTX", "annotation"; two levels joined by
// " / " when a depth mixes them), numbered ("NVTX depth 2") when the same label would name
// more than one depth. laneLabels(tree)[d - 1] is the label of depth d.
std::vector<std::string> laneLabels(const ScopeTree& tree);
std::string laneLabel(const ScopeTree& tree, int depth);
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
    int32_t categoryOf(ActivityKind kind, uint32_t nameId);   // index into m_categories
    int32_t groupIndex(const std::string& key);

    const ScopeTree& m_tree;
    const Strings& m_strings;
    GroupLevel m_level;
    std::vector<int32_t> m_node;   // [0] = no scope, [n + 1] = node n
    std::vector<int32_t> m_name;
    std::vector<std::string> m_nameFilter;
    std::vector<std::string> m_kindFilter;
    std::vector<GroupFilter> m_scopeFilter;
    std::vector<std::string> m_categoryFilter;
    std::vector<int32_t> m_kernelCategory, m_otherCategory;   // by name id, index into m_categories
    std::vector<std::string> m_categories;
    std::vector<int32_t> m_categoryGroup;                     // by m_categories index
    std::unordered_map<std::string, int32_t> m_index;
    std::vector<std::string> m_keys;
};

}  // namespace wt
