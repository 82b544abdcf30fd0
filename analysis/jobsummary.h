// A distributed job as a directory of rank files, opened without loading any activity: each
// rank was imported where it ran (`wheretime import RANK.json.gz -o rank-N.wt`, one file per
// rank, no coordination) and its stored figures are read here: the run's summary, the stored
// per-step totals (schema 3, Reader::stepTotals) reduced to one kernel time per step, and the
// per-(scope, name, kind) totals reduced to per-layer times. Files are opened in parallel; a file
// that cannot be read (truncated, not a wheretime file, a newer schema) is a JobFailure and the
// rest of the job opens. Stragglers: ranks whose median step kernel time lies above the job's
// median by more than k scaled MADs (docs/interop.md, "A job of rank files").
#pragma once

#include "analysis/samplestats.h"
#include "storage/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wt {

// Where a rank's number came from.
enum class RankSource {
    DistributedInfo,   // the Kineto trace's distributedInfo.rank (run metadata kineto.distributedInfo)
    FileName,          // the digits after "rank" in the file name (rank-12.wt), else its last digits
    None,              // neither: listed after the numbered ranks, by file name
};
std::string_view toString(RankSource s);   // "distributedInfo", "file name", "none"

struct RankSummary {
    std::string file;                 // the path as opened
    int64_t rank = -1;                // -1: RankSource::None
    RankSource rankSource = RankSource::None;
    RunInfo run;                      // the file's newest run (id, name, backend, summary)
    int64_t runs = 0;                 // runs in the file (the newest is the rank's)
    int64_t kernels = 0;              // the run's stored summary
    int64_t kernelTimeNs = 0;
    // Per step in time order, the kernel time inside it (ns; kernels only, the kernel_time_ns of
    // `wheretime stats --group-by step`). Empty for a run without steps.
    std::vector<int64_t> stepKernelNs;
    bool stepsStored = true;          // false: computed from the activities (files without step totals)
    SampleStats step;                 // of stepKernelNs
    std::optional<MeanInterval> stepInterval;   // 95% interval of the mean (needs 3 steps)
    // Kernel time per layer (the layer grouping of `wheretime stats`), largest first: (name, ns).
    std::vector<std::pair<std::string, int64_t>> layers;
    // Filled by markStragglers:
    double vsMedian = 0;              // step.median / the job's median (0 without steps)
    bool straggler = false;
};

struct JobFailure {
    std::string file;
    std::string error;                // one line (the StorageError's reason, naming the file)
};

// The straggler rule's figures over the ranks that have steps.
struct StragglerRule {
    double k = 3;                     // scaled MADs above the median
    double minShare = 0.01;           // and at least this share of the median above it
    size_t ranks = 0;                 // ranks with steps (the rule needs 3)
    double medianNs = 0;              // median over ranks of their median step kernel time
    double madNs = 0;                 // median absolute deviation of those, unscaled
    double thresholdNs = 0;           // medianNs + max(k x 1.4826 x madNs, minShare x medianNs); 0 when ranks < 3
};

struct JobSummary {
    std::vector<RankSummary> ranks;   // by rank, then unnumbered ranks by file name
    std::vector<JobFailure> failures; // in file order
    StragglerRule rule;
    // Ranks that appear in more than one file ("rank 3: a.wt, b.wt"), each a note.
    std::vector<std::string> duplicates;
};

// The wheretime files of a directory: regular, not hidden, ending in ".wt", sorted by name with
// digit runs compared as numbers (rank-2 before rank-10). Throws std::runtime_error (one line)
// when `dir` is not a readable directory.
std::vector<std::string> jobFiles(const std::string& dir);

// The rank files of a job's inputs (`wheretime job DIR|FILE.wt...`, the GUI's job view): each
// directory's jobFiles, each other path as given. Throws std::runtime_error (one line) for a
// missing path not ending in ".wt" (a missing .wt file is left to openJob: a rank left out), and
// for a directory without .wt files, saying how each rank gets one.
std::vector<std::string> jobInputs(const std::vector<std::string>& inputs);

// One rank file's figures (read-only; one read snapshot). Throws StorageError for a file that
// cannot be read, std::runtime_error for a file without runs.
RankSummary loadRankSummary(const std::string& file);

// The rank of a file name: the digits after the last "rank" (any case, one '-', '_' or '.'
// between) that has digits, else the last digit run of the base name before its first '.';
// nullopt without digits (or more than 9).
std::optional<int64_t> rankFromFileName(const std::string& path);

// Opens `files` on `threads` worker threads (<= 0: the hardware's, at most 16), sorts the ranks
// and marks the stragglers with `k` scaled MADs.
JobSummary openJob(const std::vector<std::string>& files, int threads = 0, double k = 3);

// The straggler rule over `ranks` (sets vsMedian, straggler and returns the rule's figures).
StragglerRule markStragglers(std::vector<RankSummary>& ranks, double k = 3);

}  // namespace wt
