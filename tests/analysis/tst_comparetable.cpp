// The compare and kernel-diff tables (analysis/comparetable.h) on hand-made comparisons: column
// ids per run for N runs, the total row, the one-run-only note, the delta % (analysis's, unset
// where BASE has no time), integers per run and reals per step, kernel names side by side, and
// what the writer makes of them (text with units, CSV with raw values).
#include "analysis/comparetable.h"
#include "render/comparetext.h"
#include "render/tablewriter.h"

#include <QTest>

using namespace wt;

namespace {

CompareCell cell(double ns, double count, bool present = true)
{
    CompareCell c;
    c.present = present;
    c.ns = present ? ns : 0;
    c.count = present ? count : 0;
    c.totalNs = int64_t(c.ns);
    c.totalCount = int64_t(c.count);
    return c;
}

CompareGroup group(std::string path, std::vector<CompareCell> cells)
{
    CompareGroup g;
    g.name = path;
    g.path = std::move(path);
    g.cells = std::move(cells);
    for (const CompareCell& c : g.cells) {
        const double delta = c.ns - g.cells[0].ns;
        g.deltaNs.push_back(delta);
        g.deltaPct.push_back(g.cells[0].present && g.cells[0].ns > 0 ? std::optional<double>(100.0 * delta / g.cells[0].ns) : std::nullopt);
        g.ratio.push_back(g.cells[0].present && g.cells[0].ns > 0 ? std::optional<double>(c.ns / g.cells[0].ns) : std::nullopt);
    }
    return g;
}

// Three runs: softmax in all (faster in #2, slower in #3), conv in BASE and #3, new in #2 only.
Comparison threeRuns(ComparePer per)
{
    Comparison c;
    c.per = per;
    c.groupBy = GroupBy::Layer;
    c.notes = {"per run: whole-run totals"};
    for (int i = 0; i < 3; ++i) {
        CompareRunSummary s;
        s.info.id = i + 1;
        s.info.name = "r" + std::to_string(i + 1);
        c.runs.push_back(s);
    }
    const double f = per == ComparePer::Step ? 0.5 : 1.0;   // per step: 2 steps each
    c.groups.push_back(group("softmax", {cell(1000 * f, 4 * f), cell(500 * f, 2 * f), cell(1500 * f, 5 * f)}));
    c.groups.push_back(group("conv", {cell(300 * f, 1 * f), cell(0, 0, false), cell(300 * f, 1 * f)}));
    c.groups.push_back(group("new", {cell(0, 0, false), cell(200 * f, 3 * f), cell(0, 0, false)}));
    const double totals[3] = {1300 * f, 700 * f, 1800 * f};
    for (int i = 0; i < 3; ++i) {
        c.runs[size_t(i)].total = cell(totals[i], 1);
        c.runs[size_t(i)].deltaNs = totals[i] - totals[0];
        c.runs[size_t(i)].deltaPct = 100.0 * (totals[i] - totals[0]) / totals[0];
        c.runs[size_t(i)].ratio = totals[i] / totals[0];
    }
    return c;
}

}  // namespace

class TestCompareTable : public QObject {
    Q_OBJECT
private slots:
    void columnsOfNRuns();
    void rowsAndTotal();
    void integersPerRunRealsPerStep();
    void twoRunsTitlesAndText();
    void kernelDiff();
};

void TestCompareTable::columnsOfNRuns()
{
    const Table t = compareTable(threeRuns(ComparePer::Run));
    QCOMPARE(t.id, std::string("compare"));
    std::string ids;
    for (const Column& c : t.columns)
        ids += (ids.empty() ? "" : ",") + c.id;
    QCOMPARE(ids, std::string("name,path,ns_1,ns_2,ns_3,delta_ns_2,delta_ns_3,pm_ns_2,pm_ns_3,delta_pct_2,delta_pct_3,ratio_2,"
                              "ratio_3,verdict_2,verdict_3,count_1,count_2,count_3,n_1,n_2,n_3,stddev_1,stddev_2,stddev_3,"
                              "median_1,median_2,median_3,min_1,min_2,min_3,max_1,max_2,max_3,ci_low_ns_2,ci_low_ns_3,"
                              "ci_high_ns_2,ci_high_ns_3,p_adj_2,p_adj_3,note,per"));
    QCOMPARE(t.columns[t.column("ns_1")].title, std::string("BASE"));
    QCOMPARE(t.columns[t.column("ns_3")].title, std::string("#3"));
    QCOMPARE(t.columns[t.column("delta_pct_2")].title, std::string("delta % #2"));
    QCOMPARE(t.columns[t.column("ratio_3")].title, std::string("#3/BASE"));
    QCOMPARE(t.columns[t.column("path")].title, std::string("layer"));
    QVERIFY(t.columns[t.column("delta_pct_2")].unit == Unit::Percent);
    QVERIFY(!t.columns[t.column("name")].inText && !t.columns[t.column("count_1")].inText && !t.columns[t.column("per")].inText);
    QCOMPARE(compareColumn("delta_ns", 2), std::string("delta_ns_3"));
    QCOMPARE(t.notes.front(), std::string("per run: whole-run totals"));
    QCOMPARE(t.notes.size(), size_t(2));   // and how the noise was judged
}

void TestCompareTable::rowsAndTotal()
{
    const Comparison c = threeRuns(ComparePer::Run);
    const Table t = compareTable(c);
    QCOMPARE(t.rows.size(), c.groups.size() + 1);
    QCOMPARE(textOf(t.at(3, "path")), std::string(kCompareTotal));
    QCOMPARE(numberOf(t.at(3, "ns_3")), 1800.0);
    QCOMPARE(textOf(t.at(3, "note")), std::string());
    // softmax: -50% in #2, +50% in #3; the ratio beside it.
    QCOMPARE(numberOf(t.at(0, "delta_pct_2")), -50.0);
    QCOMPARE(numberOf(t.at(0, "delta_pct_3")), 50.0);
    QCOMPARE(numberOf(t.at(0, "ratio_3")), 1.5);
    // conv left #2: none there, delta -300, -100%, ratio 0; its note names where it is.
    QVERIFY(isNone(t.at(1, "ns_2")));
    QVERIFY(isNone(t.at(1, "count_2")));
    QCOMPARE(numberOf(t.at(1, "delta_ns_2")), -300.0);
    QCOMPARE(numberOf(t.at(1, "delta_pct_2")), -100.0);
    QCOMPARE(textOf(t.at(1, "note")), std::string("only in BASE #3"));
    // new: BASE has no time in it, so no % and no ratio, but a delta.
    QVERIFY(isNone(t.at(2, "delta_pct_2")));
    QVERIFY(isNone(t.at(2, "ratio_2")));
    QCOMPARE(numberOf(t.at(2, "delta_ns_2")), 200.0);
    QCOMPARE(textOf(t.at(2, "note")), std::string("only in #2"));
    QCOMPARE(textOf(t.at(0, "per")), std::string("run"));
}

void TestCompareTable::integersPerRunRealsPerStep()
{
    const Table run = compareTable(threeRuns(ComparePer::Run));
    QVERIFY(std::holds_alternative<int64_t>(run.at(0, "ns_1")));
    QVERIFY(std::holds_alternative<int64_t>(run.at(0, "delta_ns_2")));
    QVERIFY(std::holds_alternative<int64_t>(run.at(0, "count_1")));
    QVERIFY(std::holds_alternative<double>(run.at(0, "ratio_2")));
    const Table step = compareTable(threeRuns(ComparePer::Step));
    QVERIFY(std::holds_alternative<double>(step.at(0, "ns_1")));
    QCOMPARE(numberOf(step.at(0, "ns_1")), 500.0);
    QCOMPARE(textOf(step.at(0, "per")), std::string("step"));
    // The CSV holds raw values: whole reals without a fraction, none as an empty field.
    // (Hand-made: no samples, so no interval and not enough samples; 21 noise columns empty.)
    const std::string csv = render::csv(step);
    const std::string none = "not_enough_samples,not_enough_samples,", empty(21, ',');
    QVERIFY(csv.find("\nsoftmax,softmax,500,250,750,-250,250,,,-50,50,0.5,1.5," + none + "2,1,2.5," + empty + ",step\n") !=
            std::string::npos);
    QVERIFY(csv.find("\nconv,conv,150,,150,-150,0,,,-100,0,0,1," + none + "0.5,,0.5," + empty + "only in BASE #3,step\n") !=
            std::string::npos);
}

void TestCompareTable::twoRunsTitlesAndText()
{
    Comparison c = threeRuns(ComparePer::Run);
    c.runs.pop_back();
    for (CompareGroup& g : c.groups) {
        g.cells.pop_back();
        g.deltaNs.pop_back();
        g.deltaPct.pop_back();
        g.ratio.pop_back();
    }
    c.groups.erase(c.groups.begin() + 1);   // conv was BASE and #3 only
    const Table t = compareTable(c);
    QCOMPARE(t.columns[t.column("ns_2")].title, std::string("OTHER"));
    QCOMPARE(t.columns[t.column("delta_ns_2")].title, std::string("delta"));
    QCOMPARE(t.columns[t.column("ratio_2")].title, std::string("ratio"));
    QCOMPARE(textOf(t.at(1, "note")), std::string("OTHER only"));
    const std::string text = render::text(t, {0, false});
    QVERIFY2(text.find("layer") == 0, text.c_str());
    QVERIFY(text.find("-500 ns") != std::string::npos);
    QVERIFY(text.find("-50.0%") != std::string::npos);
    QVERIFY(text.find("0.500x") != std::string::npos);
    QVERIFY(text.find("(total)") != std::string::npos);
    QVERIFY(text.find("OTHER only") != std::string::npos);
}

void TestCompareTable::kernelDiff()
{
    KernelDiff d;
    d.per = ComparePer::Run;
    d.base.total = cell(1000, 3);
    d.other.total = cell(900, 3);
    d.other.deltaNs = -100;
    d.other.deltaPct = -10;
    auto row = [&](KernelChange change, std::string op, std::string otherOp, std::string b, std::string o, CompareCell bc, CompareCell oc) {
        KernelDiffRow r;
        r.change = change;
        r.op = std::move(op);
        r.otherOp = std::move(otherOp);
        r.baseName = std::move(b);
        r.otherName = std::move(o);
        r.base = bc;
        r.other = oc;
        r.deltaNs = oc.ns - bc.ns;
        if (bc.present && bc.ns > 0) {
            r.deltaPct = 100.0 * r.deltaNs / bc.ns;
            r.ratio = oc.ns / bc.ns;
        }
        r.similarNames = change == KernelChange::Swapped;
        d.rows.push_back(r);
    };
    row(KernelChange::Swapped, "gemm", "gemm", "sgemm_128x64_nn", "sgemm_64x32_nn", cell(500, 1), cell(300, 1));
    row(KernelChange::Moved, "head", "logits", "log_softmax", "log_softmax", cell(200, 1), cell(300, 1));
    row(KernelChange::Removed, "mask", "mask", "nonzero", "", cell(300, 1), cell(0, 0, false));
    row(KernelChange::Added, "loss", "loss", "", "nll", cell(0, 0, false), cell(300, 1));
    d.swapped = d.moved = d.removed = d.added = 1;
    Table t = kernelDiffTable(d);
    QVERIFY(t.notes.empty());   // the diff's own notes only; the sentences are render's
    addKernelDiffNotes(t, d);
    QCOMPARE(t.id, std::string("kernel_diff"));
    QCOMPARE(textOf(t.at(0, "kernel")), std::string("sgemm_128x64_nn -> sgemm_64x32_nn"));
    QCOMPARE(numberOf(t.at(0, "similar_names")), 1.0);
    QCOMPARE(numberOf(t.at(0, "delta_pct")), -40.0);
    QVERIFY(isNone(t.at(0, "other_op")));
    QCOMPARE(textOf(t.at(1, "other_op")), std::string("logits"));
    QCOMPARE(textOf(t.at(2, "kernel")), std::string("nonzero ->"));
    QVERIFY(isNone(t.at(2, "other_ns")) && isNone(t.at(2, "other_name")));
    QCOMPARE(textOf(t.at(3, "kernel")), std::string("-> nll"));
    QVERIFY(isNone(t.at(3, "delta_pct")) && isNone(t.at(3, "ratio")) && isNone(t.at(3, "base_name")));
    QVERIFY(std::holds_alternative<int64_t>(t.at(0, "base_ns")));
    // The notes: the totals and the rows by change.
    QCOMPARE(t.notes.size(), size_t(2));
    QCOMPARE(t.notes[0], std::string("BASE 1.000 us, OTHER 900 ns: -100 ns (-10.0%)"));
    QCOMPARE(t.notes[1], std::string("kernels: 1 removed (-300 ns), 1 added (300 ns), 1 swapped (-200 ns), 1 moved (100 ns)"));
    QCOMPARE(kernelChangeSummary(d), t.notes[1].substr(std::string("kernels: ").size()));
}

QTEST_GUILESS_MAIN(TestCompareTable)
#include "tst_comparetable.moc"
