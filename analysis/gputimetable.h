// Time on the GPU (gputime.h) and the ranks' steps (rankstats.h) as tables (table.h): the
// figures behind `wheretime stats --group-by step` (text, --csv, --json "groups"), --json's
// "devices" and "steps", `--group-by device`, the GUI's details panel (devices, ranks) and the
// report's device table, devices.csv and steps.csv. Cells are the raw figures: times in ns on
// the run's clock (from its time 0), the idle share none over an empty span.
#pragma once

#include "analysis/gputime.h"
#include "analysis/rankstats.h"
#include "analysis/table.h"

#include <vector>

namespace wt {

// One row per step, in the steps' order: name, then the GPU time of the step. The first ten
// columns (name, start_ns, end_ns, kernels, kernel_time_ns, busy_ns, idle_ns, span_ns, comm_ns,
// comm_overlap_ns) keep the places `stats --group-by step --csv` has always given them;
// idle_share, compute_ns, non_compute_ns, comm_exposed_ns, memory_ops, memory_ns,
// memory_overlap_ns, memory_exposed_ns and index follow. In text: step, start, kernels, kernel
// time, busy, idle, span, idle%, compute, exposed comm, exposed mem.
Table stepsTable(const std::vector<StepTime>& steps);

// One row per device: id, name, then start_ns, end_ns, kernels, memory_ops, kernel_time_ns,
// busy_ns, idle_ns, idle_share, span_ns, compute_ns, non_compute_ns, comm_ns, comm_overlap_ns,
// comm_exposed_ns, memory_ns, memory_overlap_ns, memory_exposed_ns. In text: device, busy, idle,
// idle%, span, compute, communication with its overlapped and exposed parts, memory with its.
Table devicesTable(const std::vector<DeviceTime>& devices);

// The columns of ranksTable, in this order (what the GUI names by index).
enum class RankColumn : size_t {
    Name,          // name: the device's name ("rank 1: GPU 1")
    DeviceId,      // device_id
    Count,         // count: kernels on the device
    Time,          // time_ns: kernel time on the device
    Share,         // share: of the kernel time of every device
    Steps,         // steps: step instances with kernels on the device
    MeanStep,      // mean_step_ns (none without steps)
    SlowestStep,   // slowest_step (none without steps)
    SlowestTime,   // slowest_step_ns (none without steps)
    Straggler,     // straggler: 1 for the device with the largest mean step, else 0
    NumColumns
};

// One row per device, in `ranks`' order (`stats --group-by device`, the details panel's ranks).
// The straggler is said as a note above the text table, and is a 0/1 column in CSV and JSON.
Table ranksTable(const std::vector<RankStats>& ranks);

}  // namespace wt
