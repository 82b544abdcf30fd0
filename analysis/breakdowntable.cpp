#include "breakdowntable.h"

#include <string>

namespace wt {

Table breakdownTable(GroupBy groupBy, size_t count, const GroupAt& group)
{
    bool anyDistribution = false, anyCost = false;
    for (size_t i = 0; i < count; ++i) {
        anyDistribution = anyDistribution || group(i).hasDistribution;
        anyCost = anyCost || group(i).hasCost;
    }
    const std::string by(toString(groupBy));
    Table t;
    t.id = "breakdown";
    // In BreakdownColumn's order. The text table keeps what `stats` printed: the path (the
    // group key, unique) rather than the name, no min/max, no sums of FLOPs and bytes.
    t.add("name", by, Unit::Text, false)
        .add("path", by, Unit::Text)
        .add("time_ns", "time", Unit::Ns)
        .add("share", "share", Unit::Share)
        .add("count", "count", Unit::Count)
        .add("mean_ns", "mean", Unit::Ns)
        .add("median_ns", "median", Unit::Ns, anyDistribution)
        .add("min_ns", "min", Unit::Ns, false)
        .add("max_ns", "max", Unit::Ns, false)
        .add("flops", "FLOPs", Unit::Flops, false)
        .add("bytes", "bytes", Unit::Bytes, false)
        .add("flop_per_s", "FLOP/s", Unit::FlopPerS, anyCost)
        .add("bytes_per_s", "B/s", Unit::BytesPerS, anyCost);
    auto at = [](std::vector<Cell>& row, BreakdownColumn c) -> Cell& { return row[size_t(c)]; };
    t.rows.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        const Group& g = group(i);
        std::vector<Cell>& r = t.addRow();
        at(r, BreakdownColumn::Name) = g.name;
        at(r, BreakdownColumn::Path) = g.path;
        at(r, BreakdownColumn::Time) = g.timeNs;
        at(r, BreakdownColumn::Share) = g.share;
        at(r, BreakdownColumn::Count) = g.count;
        at(r, BreakdownColumn::Mean) = g.meanNs;
        if (g.hasDistribution) {
            at(r, BreakdownColumn::Median) = g.medianNs;
            at(r, BreakdownColumn::Min) = g.minNs;
            at(r, BreakdownColumn::Max) = g.maxNs;
        }
        if (g.hasCost) {   // op features: captures of bundled workloads, whole run only
            at(r, BreakdownColumn::Flops) = g.flops;
            at(r, BreakdownColumn::Bytes) = g.bytes;
            if (g.timeNs > 0) {   // a rate over no time is unknown, not 0
                at(r, BreakdownColumn::FlopRate) = g.flopPerS();
                at(r, BreakdownColumn::ByteRate) = g.bytesPerS();
            }
        }
    }
    return t;
}

}  // namespace wt
