// The first frame of a run: a RunData built from the level-of-detail summary stored in the file
// (storage/runoverview.h) in milliseconds at any size, before any activity loads. Each track
// and each scope lane holds one item per non-empty bucket of the summary's level 0 (its covered
// extent, coloured by its dominant scope's layer, or its name without a scope), so the
// timeline's one drawing path (TimelineLayout, FoldIndex, foldRow) draws the overview; the
// loaded run replaces it. RunData::overviewOnly marks it: items are buckets, not activities.
#pragma once

#include "rundata.h"

#include <memory>
#include <string>

namespace wt::gui {

// nullptr when the run has no stored summary (a run being written, an older file opened
// read-only before a read-write open gave it one). Throws wt::StorageError on bad files.
std::shared_ptr<RunData> loadOverviewRun(const std::string& path, int64_t runId);

}  // namespace wt::gui
