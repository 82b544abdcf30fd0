#include "gputimetable.h"

#include "storage/types.h"

#include <string>

namespace wt {

namespace {

// A column of GpuTime: its id, text title, whether text shows it in this table, and its cell.
struct GpuField {
    const char* id;
    const char* title;
    Unit unit;
    bool inText;
    Cell (*value)(const GpuTime&);
};

Cell idleShare(const GpuTime& t)
{
    return t.spanNs > 0 ? Cell(double(t.idleNs) / double(t.spanNs)) : Cell();   // a share of no span is unknown
}

// The GpuTime columns of the steps table, in its order (the first ten after name as before).
const GpuField kStepFields[] = {
    {"start_ns", "start", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.startNs); }},
    {"end_ns", "end", Unit::Ns, false, [](const GpuTime& t) { return Cell(t.endNs); }},
    {"kernels", "kernels", Unit::Count, true, [](const GpuTime& t) { return Cell(t.kernels); }},
    {"kernel_time_ns", "kernel time", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.kernelTimeNs); }},
    {"busy_ns", "busy", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.busyNs); }},
    {"idle_ns", "idle", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.idleNs); }},
    {"span_ns", "span", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.spanNs); }},
    {"comm_ns", "communication", Unit::Ns, false, [](const GpuTime& t) { return Cell(t.commNs); }},
    {"comm_overlap_ns", "overlapped comm", Unit::Ns, false, [](const GpuTime& t) { return Cell(t.commOverlapNs); }},
    {"idle_share", "idle%", Unit::Share, true, idleShare},
    {"compute_ns", "compute", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.computeNs); }},
    {"non_compute_ns", "non-compute", Unit::Ns, false, [](const GpuTime& t) { return Cell(t.nonComputeNs()); }},
    {"comm_exposed_ns", "exposed comm", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.commExposedNs()); }},
    {"memory_ops", "memory ops", Unit::Count, false, [](const GpuTime& t) { return Cell(t.memoryOps); }},
    {"memory_ns", "memory", Unit::Ns, false, [](const GpuTime& t) { return Cell(t.memoryNs); }},
    {"memory_overlap_ns", "overlapped mem", Unit::Ns, false, [](const GpuTime& t) { return Cell(t.memoryOverlapNs); }},
    {"memory_exposed_ns", "exposed mem", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.memoryExposedNs); }},
};

// The devices table's, in the order of the figures' definitions (docs/definitions.md).
const GpuField kDeviceFields[] = {
    {"start_ns", "start", Unit::Ns, false, [](const GpuTime& t) { return Cell(t.startNs); }},
    {"end_ns", "end", Unit::Ns, false, [](const GpuTime& t) { return Cell(t.endNs); }},
    {"kernels", "kernels", Unit::Count, false, [](const GpuTime& t) { return Cell(t.kernels); }},
    {"memory_ops", "memory ops", Unit::Count, false, [](const GpuTime& t) { return Cell(t.memoryOps); }},
    {"kernel_time_ns", "kernel time", Unit::Ns, false, [](const GpuTime& t) { return Cell(t.kernelTimeNs); }},
    {"busy_ns", "busy", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.busyNs); }},
    {"idle_ns", "idle", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.idleNs); }},
    {"idle_share", "idle%", Unit::Share, true, idleShare},
    {"span_ns", "span", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.spanNs); }},
    {"compute_ns", "compute", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.computeNs); }},
    {"non_compute_ns", "non-compute", Unit::Ns, false, [](const GpuTime& t) { return Cell(t.nonComputeNs()); }},
    {"comm_ns", "communication", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.commNs); }},
    {"comm_overlap_ns", "overlapped comm", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.commOverlapNs); }},
    {"comm_exposed_ns", "exposed comm", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.commExposedNs()); }},
    {"memory_ns", "memory", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.memoryNs); }},
    {"memory_overlap_ns", "overlapped mem", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.memoryOverlapNs); }},
    {"memory_exposed_ns", "exposed mem", Unit::Ns, true, [](const GpuTime& t) { return Cell(t.memoryExposedNs); }},
};

template <size_t N>
void addColumns(Table& t, const GpuField (&fields)[N])
{
    for (const GpuField& f : fields)
        t.add(f.id, f.title, f.unit, f.inText);
}

template <size_t N>
void fill(std::vector<Cell>& row, size_t first, const GpuField (&fields)[N], const GpuTime& time)
{
    for (size_t k = 0; k < N; ++k)
        row[first + k] = fields[k].value(time);
}

}  // namespace

Table stepsTable(const std::vector<StepTime>& steps)
{
    Table t;
    t.id = "steps";
    t.add("name", "step", Unit::Text);
    addColumns(t, kStepFields);
    t.add("index", "index", Unit::Count, false);
    t.rows.reserve(steps.size());
    for (const StepTime& s : steps) {
        std::vector<Cell>& r = t.addRow();
        r[0] = s.name;
        fill(r, 1, kStepFields, s.time);
        r.back() = s.index;
    }
    return t;
}

Table devicesTable(const std::vector<DeviceTime>& devices)
{
    Table t;
    t.id = "devices";
    t.add("id", "id", Unit::Count, false).add("name", "device", Unit::Text);
    addColumns(t, kDeviceFields);
    t.rows.reserve(devices.size());
    for (const DeviceTime& d : devices) {
        std::vector<Cell>& r = t.addRow();
        r[0] = int64_t(d.deviceId);
        r[1] = d.name;
        fill(r, 2, kDeviceFields, d.time);
    }
    return t;
}

Table ranksTable(const std::vector<RankStats>& ranks)
{
    int64_t total = 0;
    for (const RankStats& r : ranks)
        total = saturatingAdd(total, r.kernelTimeNs);
    Table t;
    t.id = "ranks";
    // In RankColumn's order.
    t.add("name", "device", Unit::Text)
        .add("device_id", "id", Unit::Count, false)
        .add("count", "kernels", Unit::Count)
        .add("time_ns", "kernel time", Unit::Ns)
        .add("share", "share", Unit::Share)
        .add("steps", "steps", Unit::Count)
        .add("mean_step_ns", "mean step", Unit::Ns)
        .add("slowest_step", "slowest step", Unit::Text)
        .add("slowest_step_ns", "its time", Unit::Ns)
        .add("straggler", "straggler", Unit::Count, false);
    auto at = [](std::vector<Cell>& row, RankColumn c) -> Cell& { return row[size_t(c)]; };
    t.rows.reserve(ranks.size());
    for (const RankStats& rs : ranks) {
        std::vector<Cell>& r = t.addRow();
        at(r, RankColumn::Name) = rs.device;
        at(r, RankColumn::DeviceId) = int64_t(rs.deviceId);
        at(r, RankColumn::Count) = rs.kernels;
        at(r, RankColumn::Time) = rs.kernelTimeNs;
        at(r, RankColumn::Share) = total > 0 ? double(rs.kernelTimeNs) / double(total) : 0.0;
        at(r, RankColumn::Steps) = rs.steps;
        if (rs.steps > 0) {   // a device without steps has no mean or slowest step
            at(r, RankColumn::MeanStep) = rs.meanStepNs;
            at(r, RankColumn::SlowestStep) = rs.slowestStep;
            at(r, RankColumn::SlowestTime) = rs.slowestStepNs;
        }
        at(r, RankColumn::Straggler) = int64_t(rs.straggler ? 1 : 0);
        if (rs.straggler)
            t.notes.push_back("slowest rank (largest mean step): " + rs.device);
    }
    return t;
}

}  // namespace wt
