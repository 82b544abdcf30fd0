#include "runsummary.h"

#include "app/gui/core/timeformat.h"
#include "analysis/gputime.h"
#include "analysis/gputimetable.h"
#include "render/tablewriter.h"

namespace wt::gui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString pct(double share)
{
    return QString::number(100.0 * share, 'f', 1) + QLatin1Char('%');
}

}  // namespace

QString markdownCell(const QString& text)
{
    QString t = text;
    t.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    t.replace(QLatin1Char('|'), QStringLiteral("\\|"));
    t.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return t;
}

QString markdownTable(const BreakdownResult& result, size_t maxRows)
{
    QString out = QStringLiteral("| %1 | time | share | count | mean |\n|---|---:|---:|---:|---:|\n")
                      .arg(groupByLabel(result.level.groupBy));
    // analysis's top-N rule: maxRows groups, then one line for the rest.
    for (const Slice& slice : wt::topSlices(result.rows, maxRows + 1)) {
        if (slice.other) {
            int64_t count = 0;
            for (size_t m : slice.members)
                count += result.rows[m].count;
            out += QStringLiteral("| *%1 more* | %2 | %3 | %4 | |\n")
                       .arg(slice.members.size())
                       .arg(formatDuration(double(slice.timeNs)), pct(slice.share), QString::number(count));
            continue;
        }
        const BreakdownRow& r = result.rows[slice.members.front()];
        out += QStringLiteral("| %1 | %2 | %3 | %4 | %5 |\n")
                   .arg(markdownCell(qs(r.name)), formatDuration(double(r.timeNs)), pct(r.share), QString::number(r.count),
                        formatDuration(r.meanNs));
    }
    return out;
}

QString markdownMetadata(const BreakdownSource& source)
{
    const RunStats& s = source.stats();
    const RunInfo& r = s.run;
    QString out = QStringLiteral("| | |\n|---|---|\n");
    auto row = [&out](const QString& k, const QString& v) { out += QStringLiteral("| %1 | %2 |\n").arg(k, markdownCell(v)); };
    row(QStringLiteral("run"), QStringLiteral("%1 (%2)").arg(r.id).arg(qs(r.name)));
    row(QStringLiteral("workload"), qs(r.workload) + (r.preset.empty() ? QString() : QStringLiteral(", preset ") + qs(r.preset)));
    row(QStringLiteral("variant"), r.variant.empty() ? QStringLiteral("-") : qs(r.variant));
    row(QStringLiteral("device"), qs(r.device));
    row(QStringLiteral("backend"), qs(r.backend));
    row(QStringLiteral("date"), qs(r.startedAt));
    row(QStringLiteral("status"), QString::fromLatin1(toString(r.status).data(), qsizetype(toString(r.status).size())));
    row(QStringLiteral("dropped records"), QString::number(r.droppedRecords));
    if (!r.sourceFile.empty())
        row(QStringLiteral("imported from"), qs(r.sourceFile));
    row(QStringLiteral("kernels"), QString::number(s.kernels));
    row(QStringLiteral("kernel time"), formatDuration(double(s.kernelTimeNs)));
    // The stored summary: kernels only, every device together (the devices' busy, with memory
    // operations, is in the device table).
    row(QStringLiteral("kernel busy (all devices)"), formatDuration(double(s.kernelBusyNs)));
    row(QStringLiteral("kernel span (all devices)"), formatDuration(double(s.kernelSpanNs)));
    return out;
}

QString markdownOf(const Table& table)
{
    QString head = QStringLiteral("|"), rule = QStringLiteral("|");
    for (const Column& c : table.columns) {
        if (!c.inText)
            continue;
        head += QStringLiteral(" %1 |").arg(markdownCell(qs(c.title)));
        rule += c.unit == Unit::Text ? QStringLiteral("---|") : QStringLiteral("---:|");
    }
    QString out = head + QLatin1Char('\n') + rule + QLatin1Char('\n');
    for (const std::vector<Cell>& row : table.rows) {
        out += QLatin1Char('|');
        for (size_t k = 0; k < table.columns.size(); ++k)
            if (table.columns[k].inText)
                out += QStringLiteral(" %1 |").arg(markdownCell(qs(render::cellText(table.columns[k], row[k]))));
        out += QLatin1Char('\n');
    }
    return out;
}

QString markdownDeviceTable(const BreakdownSource& source)
{
    const auto& data = source.runData();
    if (!data)
        return {};
    const std::vector<DeviceTime> devices = computeDeviceTimes(source.profile(), data->activities());
    if (devices.empty())
        return {};
    return markdownOf(devicesTable(devices));   // the columns `stats --group-by step` prints per device
}

QString runSummaryMarkdown(const BreakdownSource& source, size_t maxRows)
{
    const RunInfo& r = source.run();
    QString out = QStringLiteral("# Run %1: %2\n\n").arg(r.id).arg(markdownCell(qs(r.name)));
    out += markdownMetadata(source);
    if (r.droppedRecords > 0)
        out += QStringLiteral("\n> %1 records were dropped by the tracer: times below undercount.\n").arg(r.droppedRecords);
    if (const QString devices = markdownDeviceTable(source); !devices.isEmpty())
        out += QStringLiteral("\n## Time on the GPU per device\n\nBusy: a kernel or a memory operation running; idle: "
                              "nothing; exposed: not under compute (docs/definitions.md).\n\n") +
               devices;
    out += QStringLiteral("\n## Kernel time by layer\n\n") + markdownTable(source.compute({GroupBy::Layer, {}}), maxRows);
    out += QStringLiteral("\n## Kernel time by phase\n\n") + markdownTable(source.compute({GroupBy::Phase, {}}), maxRows);
    out += QStringLiteral("\n## Top kernels\n\n") + markdownTable(source.compute({GroupBy::Kernel, {}}), maxRows);
    return out;
}

}  // namespace wt::gui
