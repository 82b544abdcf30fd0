#include "comparetable.h"

#include <cmath>

namespace wt {

namespace {

// Per run the figures are whole ns and whole counts: integers, as `stats` writes them; per step
// they are means (reals).
Cell amount(double v, ComparePer per)
{
    if (per == ComparePer::Run && std::isfinite(v))
        return int64_t(std::llround(v));
    return v;
}

Cell cellOf(const CompareCell& c, ComparePer per, bool count = false)
{
    if (!c.present)
        return {};
    return amount(count ? c.count : c.ns, per);
}

Cell optional(const std::optional<double>& v)
{
    return v ? Cell(*v) : Cell();
}

Cell nameOrNone(const std::string& s)
{
    return s.empty() ? Cell() : Cell(s);
}

// How the noise was judged, once above the table.
std::string noiseNote(const Comparison& c)
{
    std::string samples;
    for (size_t i = 0; i < c.runs.size(); ++i) {
        const SampleStats& st = c.runs[i].total.stats;
        samples += (i ? ", " : "") + std::to_string(st.n);
    }
    return std::string("noise: 95% Welch interval (\u00b1) of the delta over ") +
           (c.per == ComparePer::Step ? "the per-step samples" : "the runs of each side") + " (" + samples +
           "); verdicts under Holm's control over the " + std::to_string(c.groups.size()) +
           " groups (the total on its own); not_enough_samples: a side has fewer than 3";
}

}  // namespace

std::string compareRunTag(size_t index, size_t runCount)
{
    if (index == 0)
        return "BASE";
    return runCount == 2 ? "OTHER" : "#" + std::to_string(index + 1);
}

std::string compareColumn(std::string_view stem, size_t index)
{
    return std::string(stem) + "_" + std::to_string(index + 1);
}

std::string onlyInLabel(const CompareGroup& g)
{
    if (g.inAll())
        return {};
    const size_t n = g.cells.size();
    if (n == 2)
        return g.cells[0].present ? "BASE only" : "OTHER only";
    std::string s = "only in";
    for (size_t i = 0; i < n; ++i)
        if (g.cells[i].present)
            s += " " + compareRunTag(i, n);
    return s;
}

Table compareTable(const Comparison& c)
{
    const size_t n = c.runs.size();
    Table t;
    t.id = "compare";
    t.notes = c.notes;
    t.add("name", "name", Unit::Text, false);
    t.add("path", std::string(toString(c.groupBy)), Unit::Text);
    for (size_t i = 0; i < n; ++i)
        t.add(compareColumn("ns", i), compareRunTag(i, n), Unit::Ns);
    // With two runs the OTHER is implied ("delta"); with more, each column names its run.
    auto vs = [&](size_t i) { return n == 2 ? std::string() : " " + compareRunTag(i, n); };
    for (size_t i = 1; i < n; ++i)
        t.add(compareColumn("delta_ns", i), "delta" + vs(i), Unit::Ns);
    for (size_t i = 1; i < n; ++i)
        t.add(compareColumn("pm_ns", i), "\u00b1" + vs(i), Unit::Ns);
    for (size_t i = 1; i < n; ++i)
        t.add(compareColumn("delta_pct", i), "delta %" + vs(i), Unit::Percent);
    for (size_t i = 1; i < n; ++i)
        t.add(compareColumn("ratio", i), n == 2 ? std::string("ratio") : compareRunTag(i, n) + "/BASE", Unit::Ratio);
    for (size_t i = 1; i < n; ++i)
        t.add(compareColumn("verdict", i), "verdict" + vs(i), Unit::Text);
    for (size_t i = 0; i < n; ++i)
        t.add(compareColumn("count", i), compareRunTag(i, n) + " n", Unit::Count, false);
    // The samples (per step, or per repeat per run) and the intervals: CSV and JSON only.
    for (const char* stem : {"n", "stddev", "median", "min", "max"})
        for (size_t i = 0; i < n; ++i)
            t.add(compareColumn(stem, i), std::string(stem) + " " + compareRunTag(i, n),
                  std::string_view(stem) == "n" ? Unit::Count : Unit::Ns, false);
    for (const char* stem : {"ci_low_ns", "ci_high_ns", "p_adj"})
        for (size_t i = 1; i < n; ++i)
            t.add(compareColumn(stem, i), std::string(stem) + vs(i), std::string_view(stem) == "p_adj" ? Unit::Number : Unit::Ns,
                  false);
    t.add("note", "note", Unit::Text);
    t.add("per", "per", Unit::Text, false);

    const std::string per(toString(c.per));
    auto fill = [&](std::vector<Cell>& row, const std::string& name, const std::string& path, auto&& cell, auto&& delta,
                    auto&& pct, auto&& ratio, auto&& interval, auto&& verdict, auto&& adjusted, std::string note) {
        size_t col = 0;
        row[col++] = name;
        row[col++] = path;
        for (size_t i = 0; i < n; ++i)
            row[col++] = cellOf(cell(i), c.per);
        for (size_t i = 1; i < n; ++i)
            row[col++] = amount(delta(i), c.per);
        for (size_t i = 1; i < n; ++i) {
            const std::optional<WelchInterval>& w = interval(i);
            row[col++] = w ? Cell((w->high - w->low) / 2) : Cell();
        }
        for (size_t i = 1; i < n; ++i)
            row[col++] = optional(pct(i));
        for (size_t i = 1; i < n; ++i)
            row[col++] = optional(ratio(i));
        for (size_t i = 1; i < n; ++i)
            row[col++] = std::string(toString(verdict(i)));
        for (size_t i = 0; i < n; ++i)
            row[col++] = cellOf(cell(i), c.per, true);
        auto stat = [&](auto&& field) {
            for (size_t i = 0; i < n; ++i) {
                const SampleStats& st = cell(i).stats;
                row[col++] = st.n == 0 ? Cell() : field(st);
            }
        };
        stat([](const SampleStats& st) { return Cell(int64_t(st.n)); });
        stat([](const SampleStats& st) { return Cell(st.stddev); });
        stat([&](const SampleStats& st) { return amount(st.median, c.per); });
        stat([&](const SampleStats& st) { return amount(st.min, c.per); });
        stat([&](const SampleStats& st) { return amount(st.max, c.per); });
        for (size_t i = 1; i < n; ++i)
            row[col++] = interval(i) ? Cell(interval(i)->low) : Cell();
        for (size_t i = 1; i < n; ++i)
            row[col++] = interval(i) ? Cell(interval(i)->high) : Cell();
        for (size_t i = 1; i < n; ++i)
            row[col++] = interval(i) ? Cell(adjusted(i)) : Cell();
        row[col++] = std::move(note);
        row[col++] = per;
    };
    // Hand-made comparisons may leave the noise unset: none, then.
    static const std::optional<WelchInterval> noInterval;
    auto at = [](const auto& v, size_t i, const auto& fallback) -> const auto& { return i < v.size() ? v[i] : fallback; };
    for (const CompareGroup& g : c.groups)
        fill(t.addRow(), g.name, g.path, [&](size_t i) -> const CompareCell& { return g.cells[i]; },
             [&](size_t i) { return g.deltaNs[i]; }, [&](size_t i) { return g.deltaPct[i]; }, [&](size_t i) { return g.ratio[i]; },
             [&](size_t i) -> const std::optional<WelchInterval>& { return at(g.interval, i, noInterval); },
             [&](size_t i) { return i < g.verdict.size() ? g.verdict[i] : Verdict::NotEnoughSamples; },
             [&](size_t i) { return i < g.adjustedP.size() ? g.adjustedP[i] : 1.0; }, onlyInLabel(g));
    fill(t.addRow(), kCompareTotal, kCompareTotal, [&](size_t i) -> const CompareCell& { return c.runs[i].total; },
         [&](size_t i) { return c.runs[i].deltaNs; }, [&](size_t i) { return c.runs[i].deltaPct; },
         [&](size_t i) { return c.runs[i].ratio; },
         [&](size_t i) -> const std::optional<WelchInterval>& { return c.runs[i].interval; },
         [&](size_t i) { return c.runs[i].interval ? c.runs[i].verdict : Verdict::NotEnoughSamples; },
         [&](size_t i) { return c.runs[i].interval ? c.runs[i].interval->p : 1.0; }, std::string());
    if (n > 1)
        t.notes.push_back(noiseNote(c));
    return t;
}

Table compareRunsTable(const std::vector<CompareRunSummary>& runs)
{
    Table t;
    t.id = "compare_runs";
    t.add("file", "file", Unit::Text);
    t.add("id", "id", Unit::Number);
    for (const char* c : {"name", "workload", "variant", "backend", "device", "status"})
        t.add(c, c, Unit::Text);
    t.add("steps", "steps", Unit::Count);
    for (const CompareRunSummary& r : runs) {
        auto& row = t.addRow();
        row = {r.file, r.info.id, r.info.name, r.info.workload, r.info.variant, r.info.backend, r.info.device,
               std::string(toString(r.info.status)), r.steps};
    }
    return t;
}

Table kernelDiffTable(const KernelDiff& d)
{
    Table t;
    t.id = "kernel_diff";
    t.notes = d.notes;

    t.add("change", "change", Unit::Text);
    t.add("op", "op", Unit::Text);
    t.add("other_op", "moved to", Unit::Text);
    t.add("base_ns", "BASE", Unit::Ns);
    t.add("other_ns", "OTHER", Unit::Ns);
    t.add("delta_ns", "delta", Unit::Ns);
    t.add("pm_ns", "\u00b1", Unit::Ns);
    t.add("delta_pct", "delta %", Unit::Percent);
    t.add("ratio", "ratio", Unit::Ratio);
    t.add("verdict", "verdict", Unit::Text);
    t.add("base_count", "BASE n", Unit::Count);
    t.add("other_count", "OTHER n", Unit::Count);
    t.add("kernel", "kernel (BASE -> OTHER)", Unit::Text);
    t.add("base_name", "BASE kernel", Unit::Text, false);
    t.add("other_name", "OTHER kernel", Unit::Text, false);
    t.add("similar_names", "similar names", Unit::Number, false);
    // The samples (per step) and the interval: CSV and JSON only.
    t.add("base_samples", "samples BASE", Unit::Count, false);
    t.add("other_samples", "samples OTHER", Unit::Count, false);
    t.add("base_stddev_ns", "stddev BASE", Unit::Ns, false);
    t.add("other_stddev_ns", "stddev OTHER", Unit::Ns, false);
    t.add("ci_low_ns", "ci_low_ns", Unit::Ns, false);
    t.add("ci_high_ns", "ci_high_ns", Unit::Ns, false);
    t.add("p_adj", "p_adj", Unit::Number, false);
    t.add("per", "per", Unit::Text, false);
    const std::string per(toString(d.per));
    {
        // How the noise was judged, once above the table (as the compare table's note).
        const SampleStats &bs = d.base.total.stats, &os = d.other.total.stats;
        size_t tested = 0;
        for (const KernelDiffRow& r : d.rows)
            tested += r.interval.has_value();
        if (bs.n == 0 && os.n == 0)
            ;   // no samples (steps not read, a diff made by hand): nothing was judged
        else if (d.per == ComparePer::Step)
            t.notes.push_back("noise: 95% Welch interval (\u00b1) of each kernel's delta over the per-step samples (" +
                              std::to_string(bs.n) + ", " + std::to_string(os.n) + "); verdicts under Holm's control over the " +
                              std::to_string(tested) + " kernels tested (the total on its own); not_enough_samples: a side has fewer than 3");
        else
            t.notes.push_back("noise: per run each side is one sample: not_enough_samples (compare per step for intervals)");
    }
    auto stat = [](const CompareCell& c, auto&& field) { return c.stats.n == 0 ? Cell() : field(c.stats); };
    auto samplesOf = [](const SampleStats& st) { return Cell(int64_t(st.n)); };
    auto stddevOf = [](const SampleStats& st) { return Cell(st.stddev); };
    for (const KernelDiffRow& r : d.rows) {
        // Names are never merged: a swap shows both, an added or removed kernel its side.
        std::string kernel = r.change == KernelChange::Swapped ? r.baseName + " -> " + r.otherName
                             : r.change == KernelChange::Added ? "-> " + r.otherName
                             : r.change == KernelChange::Removed ? r.baseName + " ->"
                                                                 : r.baseName;
        auto& row = t.addRow();
        row = {std::string(toString(r.change)),
               r.op,
               r.change == KernelChange::Moved ? Cell(r.otherOp) : Cell(),
               cellOf(r.base, d.per),
               cellOf(r.other, d.per),
               amount(r.deltaNs, d.per),
               r.interval ? Cell((r.interval->high - r.interval->low) / 2) : Cell(),
               optional(r.deltaPct),
               optional(r.ratio),
               std::string(toString(r.verdict)),
               cellOf(r.base, d.per, true),
               cellOf(r.other, d.per, true),
               std::move(kernel),
               nameOrNone(r.baseName),
               nameOrNone(r.otherName),
               int64_t(r.similarNames ? 1 : 0),
               stat(r.base, samplesOf),
               stat(r.other, samplesOf),
               stat(r.base, stddevOf),
               stat(r.other, stddevOf),
               r.interval ? Cell(r.interval->low) : Cell(),
               r.interval ? Cell(r.interval->high) : Cell(),
               r.interval ? Cell(r.adjustedP) : Cell(),
               per};
    }
    return t;
}

}  // namespace wt
