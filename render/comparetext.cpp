#include "comparetext.h"

#include "render/textformat.h"

namespace wt {

std::string kernelDiffTotals(const KernelDiff& d)
{
    std::string out = "BASE " + formatDuration(d.base.total.ns) + ", OTHER " + formatDuration(d.other.total.ns) + ": " +
                      formatDuration(d.other.deltaNs);
    if (d.other.interval)
        out += " \u00b1 " + formatDuration((d.other.interval->high - d.other.interval->low) / 2);
    if (d.other.deltaPct)
        out += " (" + formatPercent(*d.other.deltaPct) + ")";
    if (d.other.interval)
        out += ", " + std::string(verdictLabel(d.other.verdict));
    return out;
}

std::string kernelChangeSummary(const KernelDiff& d)
{
    std::string out;
    for (const KernelChangeTotal& t : changeTotals(d))
        if (t.rows > 0)
            out += (out.empty() ? "" : ", ") + std::to_string(t.rows) + " " + std::string(toString(t.change)) + " (" +
                   formatDuration(t.deltaNs) + ")";
    return out;
}

void addKernelDiffNotes(Table& table, const KernelDiff& d)
{
    table.notes.push_back(kernelDiffTotals(d));
    table.notes.push_back("kernels: " + kernelChangeSummary(d));
}

}  // namespace wt
