// Find on the timeline: which kernels, memory operations, scope instances (in the GPU lanes and
// on the host threads' lanes) and API calls of a run match a
// text (substring, case-insensitive) or a regular expression by name, as membership bits in
// the shape the draw list marks (GroupMarks: every match is marked on the timeline, in folds
// too, at the cost of a group selection), and stepping from one match to the next or
// previous in time order. The names are matched once per distinct name (a few thousand), so
// a search over 10M kernels costs one pass over their name ids.
#pragma once

#include "groupselection.h"
#include "rundata.h"
#include "timelinelayout.h"

#include <QString>

#include <memory>

namespace wt::gui {

struct SearchResult {
    QString text;
    bool regex = false;
    QString error;                        // a bad regular expression: why (then nothing matches)
    std::shared_ptr<const GroupMarks> marks;   // tracks: matching activities; lanes: matching scope instances
    int64_t activityMatches = 0;
    int64_t scopeMatches = 0;             // instances shown in lanes (that ran kernels)
    int64_t apiMatches = 0;               // API calls (the CPU rows)
    int64_t hostMatches = 0;              // ranges on the host threads' lanes (host time; a range
                                          // that ran kernels counts here and in scopeMatches)
    int64_t count() const { return activityMatches + scopeMatches + apiMatches + hostMatches; }
};

// Matches of `text` in the run's names: kernel and memory activity names, scope names and API
// call names, host ranges by their scope name.
// Empty text matches nothing.
SearchResult searchRun(const RunData& run, const QString& text, bool regex = false);

// The match after (forward) or before `from` in time order (start, then tracks, lanes, API
// rows, host lanes, then position; a host range by its host start, selected with host = true), wrapping around at the ends. `from` None: the first match starting at or
// after `fromNs` (backward: the last starting before it). None when nothing matches.
Selection stepMatch(const RunData& run, const SearchResult& result, const Selection& from, double fromNs, bool forward);

// 1-based position of a selection among the matches in that order; 0 when it is no match.
int64_t matchOrdinal(const RunData& run, const SearchResult& result, const Selection& selection);

// Start and end of a selected activity, API call or scope instance (ns from the run's time 0;
// a scope picked on a host lane: its host times); false
// when the selection is none or has no span.
bool selectionSpan(const RunData& run, const Selection& selection, int64_t& startNs, int64_t& endNs);

}  // namespace wt::gui
