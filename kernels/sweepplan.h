// The sweep plan of `wheretime capture --sweep` and `wheretime predict --sweep`: KEY=v1,v2,...
// once (one run per value) or twice (a grid: one run per pair), parsed and checked here once, so
// both commands accept the same text and refuse it with the same one-line messages. A key is a
// size `--set` accepts, `variant` or `preset`; whether a value is a valid size is checked where
// the configuration is resolved (resolveConfig), before anything is written.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wt::kernels {

// A malformed --sweep (no '=', an empty or repeated value, a third key, a key given twice or
// also by --variant, --preset or --set). what() is one line; the CLI answers it as a usage error.
struct SweepPlanError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// One --sweep KEY=v1,v2,...: values split at ',', or at ';' when the text holds one (values
// that hold commas: cutoffs=2000,10000;4000,20000).
struct SweepAxis {
    std::string key;
    std::vector<std::string> values;
};

// What the command sets outside its --sweep options: a swept key must not be set there too.
struct SweepFixed {
    bool variant = false;                  // --variant given
    bool preset = false;                   // --preset given
    std::vector<std::string> setKeys;      // the keys of --set
};

struct SweepPlan {
    std::vector<SweepAxis> axes;           // none, one, or two (a grid)
    // Every combination, the first key outermost: combos[i][a] is run i's value of axes[a].
    // Empty when there is no sweep.
    std::vector<std::vector<std::string>> combos;

    bool empty() const { return axes.empty(); }
    // "-hidden=32" or "-hidden=32-variant=full": what run i's name gets appended.
    std::string nameTag(size_t run) const;
};

// Throws SweepPlanError.
SweepAxis parseSweepAxis(const std::string& text);
// Every --sweep text of a command, in order. Throws SweepPlanError.
SweepPlan parseSweepPlan(const std::vector<std::string>& texts, const SweepFixed& fixed = {});

// Sets one swept key: the variant, the preset, or (any other key) a size override appended.
void applySweepValue(const std::string& key, const std::string& value, std::string& variant, std::string& preset,
                     std::vector<std::pair<std::string, std::string>>& overrides);

}  // namespace wt::kernels
