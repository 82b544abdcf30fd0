// The ranks of one distributed job (one trace file per rank) merged into one trace, so they are
// written as one run with one device per rank. Which files belong together is decided here
// (the rule is in docs/interop.md, "Many ranks, one run"); files of different jobs are refused
// with the reason.
#pragma once

#include "importedtrace.h"

#include <string>
#include <vector>

namespace wt::interop {

// What a trace says about its place in a job (Kineto `distributedInfo`); rank -1 = not said.
struct RankInfo {
    int rank = -1;
    int worldSize = -1;
    std::string backend;                      // nccl, gloo, ... (empty when not said)
};

// From the trace's `kineto.distributedInfo` metadata (the raw JSON object the parser kept).
RankInfo rankInfoOf(const ImportedTrace& trace);

struct RankedTrace {
    std::string file;                         // as errors name it
    ImportedTrace trace;                      // resolved (resolveRanges()) or not
};

struct MergeResult {
    ImportedTrace trace;                      // resolved; devices named "rank R: <device>"
    std::vector<int> ranks;                   // in the order of the merged devices
    bool ranksFromFile = true;                // false: no file said its rank, file order gave them
};

// Checks that the traces are the ranks of one job and merges them: clocks aligned on each
// trace's absolute time (clockBaseNs + raw time), one device per (rank, used device) in rank
// order, scopes and strings kept (ranges of the same name at the same place become the same
// scope node when written, so ProfilerStep#N of every rank is one step). Consumes the traces.
// Throws ImportError naming the file(s) and the reason when they are not one job.
MergeResult mergeRanks(std::vector<RankedTrace> traces);

// Throws ImportError naming both arguments when two of `paths` are one file: the same file
// (device and inode, so the same path, a symlink or a hard link) or two regular files with the
// same bytes (a copy). Files that say no rank cannot tell one file given twice from two ranks
// (with distributedInfo, mergeRanks() refuses the same rank twice). Paths that cannot be
// stat'ed are left to the parser; FIFOs and devices are never read here.
void checkDistinctFiles(const std::vector<std::string>& paths);

// The trace files in a directory, sorted by name with numbers compared as numbers (rank-2
// before rank-10): regular, not hidden, ending in .json, .json.gz, .gz, .sqlite or .sqlite3.
// Throws ImportError when it cannot be listed or holds none.
std::vector<std::string> traceFilesIn(const std::string& directory);

}  // namespace wt::interop
