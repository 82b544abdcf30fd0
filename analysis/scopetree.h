// A run's scope tree in memory, with names resolved: paths at a depth (through the one
// scope-path implementation in storage/scopepaths.h), the ancestor at a level (layer, phase),
// and node positions (nodes sorted by id: position i is what the GUI's RunData calls node i).
// It also carries the run's grouping settings, stored with the run (runprofile.h reads them):
// the layer depth of runs without a "layer" level, and the kernel category rules.
#pragma once

#include "analysis/kernelcategory.h"
#include "storage/scopepaths.h"
#include "storage/types.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace wt {

class Reader;

class ScopeTree {
public:
    static constexpr uint32_t kNoNode = 0xffffffffu;

    ScopeTree() = default;
    ScopeTree(const std::vector<ScopeNode>& nodes, const std::unordered_map<uint32_t, std::string>& strings);
    static ScopeTree load(const Reader& reader, int64_t runId);

    bool contains(int64_t scopeId) const { return m_index.count(scopeId) != 0; }
    const ScopeNode& node(int64_t scopeId) const { return m_nodes[m_index.at(scopeId)]; }
    const std::vector<ScopeNode>& nodes() const { return m_nodes; }   // sorted by id
    // Position of a node in nodes(), kNoNode for 0 or an unknown id.
    uint32_t indexOf(int64_t scopeId) const;
    const std::string& name(int64_t scopeId) const;
    const std::string& level(int64_t scopeId) const;
    // '/'-joined names from the top level down to min(depth, node depth). depth <= 0: full path.
    std::string path(int64_t scopeId, int depth = 0) const;
    // The id of the ancestor-or-self at the given depth (or the node itself if shallower).
    int64_t ancestorAtDepth(int64_t scopeId, int depth) const;
    // The ancestor-or-self whose level is `level`, 0 when there is none.
    int64_t ancestorAtLevel(int64_t scopeId, const std::string& level) const;
    bool hasLevel(const std::string& level) const;
    int maxDepth() const { return m_maxDepth; }

    // Steps: scopes at level "step" (captures' steps; imports' ranges recognised as steps).
    bool isStep(int64_t scopeId) const { return contains(scopeId) && level(scopeId) == "step"; }
    bool hasSteps() const { return hasLevel("step"); }
    // Depth counting only scopes that are not steps: a step is never a layer, so the level
    // below the step is depth 1 (the top level in a run without steps). 0 for a step itself
    // when no non-step scope is above it.
    int depthBelowSteps(int64_t scopeId) const;
    // The ancestor-or-self at depthBelowSteps == depth (the node itself when it is shallower
    // and not a step); 0 for 0, an unknown id, or a step with nothing but steps above.
    int64_t ancestorBelowSteps(int64_t scopeId, int depth) const;
    int maxDepthBelowSteps() const { return m_maxDepthBelowSteps; }

    // The layer level of a run without a "layer" level, counted below the steps (default 1;
    // `wheretime import --layer-depth N`; the GUI's control). Values below 1 count as 1.
    void setLayerDepth(int depth) { m_layerDepth = depth < 1 ? 1 : depth; }
    int layerDepth() const { return m_layerDepth; }
    // Kernel category rules (built-in ones when none were set).
    void setCategories(CategoriesPtr categories) { m_categories = std::move(categories); }
    const KernelCategories& categories() const;
    const CategoriesPtr& categoriesPtr() const { return m_categories; }

private:
    std::vector<ScopeNode> m_nodes;
    std::unordered_map<int64_t, size_t> m_index;
    std::unordered_map<uint32_t, std::string> m_names;   // only the ids the tree uses
    std::unordered_set<std::string> m_levels;            // level names present
    ScopePaths m_paths;
    int m_maxDepth = 0;
    int m_maxDepthBelowSteps = 0;
    int m_layerDepth = 1;
    CategoriesPtr m_categories;
};

}  // namespace wt
