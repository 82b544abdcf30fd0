#include "summarytable.h"

#include <algorithm>
#include <climits>

namespace wt {

bool isCpuDevice(std::string_view deviceName)
{
    return deviceName == "CPU" || deviceName.substr(0, 5) == "CPU: ";
}

Table runSummaryTable(const RunInfo& run, const std::vector<StepTime>& steps, const std::vector<DeviceTime>& devices)
{
    Table t;
    t.id = "run";
    t.add("id", "run", Unit::Count)
        .add("name", "name", Unit::Text)
        .add("workload", "workload", Unit::Text)
        .add("variant", "variant", Unit::Text)
        .add("device", "device", Unit::Text)
        .add("backend", "backend", Unit::Text)
        .add("status", "status", Unit::Text)
        .add("steps", "steps", Unit::Count)
        .add("devices", "devices", Unit::Count)
        .add("kernels", "kernels", Unit::Count)
        .add("memory_ops", "memory ops", Unit::Count)
        .add("kernel_time_ns", "kernel time", Unit::Ns)
        .add("span_ns", "span", Unit::Ns)
        .add("dropped_records", "dropped records", Unit::Count);
    int64_t memoryOps = 0, start = INT64_MAX, end = INT64_MIN;
    for (const DeviceTime& d : devices) {
        memoryOps += d.time.memoryOps;
        if (d.time.kernels + d.time.memoryOps > 0) {
            start = std::min(start, d.time.startNs);
            end = std::max(end, d.time.endNs);
        }
    }
    std::vector<Cell>& row = t.addRow();
    row[0] = run.id;
    row[1] = run.name;
    row[2] = run.workload;
    row[3] = run.variant;
    row[4] = run.device;
    row[5] = run.backend;
    row[6] = std::string(toString(run.status));
    row[7] = int64_t(steps.size());
    row[8] = int64_t(devices.size());
    row[9] = run.kernels;
    row[10] = memoryOps;
    row[11] = run.kernelTimeNs;
    row[12] = start <= end ? Cell(end - start) : Cell();
    row[13] = run.droppedRecords;
    return t;
}

Table rangeSummaryTable(const RangeSummary& s)
{
    Table t;
    t.id = "range";
    t.add("section", "section", Unit::Text)
        .add("name", "name", Unit::Text)
        .add("start_ns", "start", Unit::Ns)
        .add("end_ns", "end", Unit::Ns)
        .add("time_ns", "kernel time", Unit::Ns)
        .add("share", "share", Unit::Share)
        .add("count", "kernels", Unit::Count);
    std::vector<Cell>& r = t.addRow();
    r[0] = std::string("range");
    r[1] = std::string();
    r[2] = s.range.startNs;
    r[3] = s.range.endNs;
    r[4] = s.kernelTimeNs;
    r[6] = s.kernels;
    auto groups = [&t](const Breakdown& b, const char* section) {
        for (const Group& g : b.groups) {
            std::vector<Cell>& row = t.addRow();
            row[0] = std::string(section);
            row[1] = g.name;
            row[4] = g.timeNs;
            row[5] = g.share;
            row[6] = g.count;
        }
    };
    groups(s.layers, "layer");
    groups(s.kernelsByName, "kernel");
    t.notes.push_back("kernel time inside the range, each kernel clipped to it; shares of the range's kernel time");
    return t;
}

}  // namespace wt
