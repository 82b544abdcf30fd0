// The run summary and a range summary as tables (table.h): what the details panel shows for a
// run and for a selected time range, and what `wheretime stats F --summary [--range T0:T1]`
// prints (text, --csv, --json through render/), so the GUI's export of either is the CLI's
// CSV byte for byte. Times in ns from the run's time 0.
#pragma once

#include "analysis/gputime.h"
#include "analysis/rangesummary.h"
#include "analysis/table.h"
#include "storage/types.h"

#include <string_view>
#include <vector>

namespace wt {

// A device the CPU tracer recorded ("CPU: <model>"): it has no grid, block, registers or shared
// memory, and its busy time is the CPU's, not a GPU's.
bool isCpuDevice(std::string_view deviceName);

// One row: id, name, workload, variant, device, backend, status, steps (the steps of
// computeStepTimes: the instances of one step on several ranks count once, as in `stats
// --group-by step`), devices (that ran something), kernels, memory_ops, kernel_time_ns,
// span_ns (first activity start to last end over every device), dropped_records.
Table runSummaryTable(const RunInfo& run, const std::vector<StepTime>& steps, const std::vector<DeviceTime>& devices);

// The rows of a range: first the range itself (section "range": start_ns, end_ns, the kernel
// time inside it as time_ns, its kernel count), then the time by layer (section "layer", largest
// first, share of the range's kernel time), then the top kernels by name (section "kernel").
// Columns: section, name, start_ns, end_ns, time_ns, share, count.
Table rangeSummaryTable(const RangeSummary& summary);

}  // namespace wt
