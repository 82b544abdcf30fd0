// Variants and scaling views benchmark (issue 12: each opens in under 200 ms from stored
// totals). Opens the variants view of a run's variants (Compare variants: analysis's
// selectVariantRuns of the file's newest capture) and the scaling view of a file's newest
// sweep, each from nothing: construct the view, load the runs' stored totals on the worker,
// compute (computeVariants / loadSweep), build the charts and paint the first frame (grab).
// Prints per view the median, min and max wall time of R opens.
//
//   bench_variantsview --variants FILE --sweep FILE [--repeat 15]
//
// FILE: any wheretime file, e.g. 4 CPU captures of every variant (scripts/variants.sh, or
// `wheretime capture --variant V ...` per variant) and a 16-run sweep
// (`wheretime capture --sweep hidden=256,512,1024,2048 --sweep variant=full,adaptive,bucketed,fused`).
#include "app/gui/variants/scalingview.h"
#include "app/gui/variants/variantsactions.h"
#include "app/gui/variants/variantsview.h"
#include "storage/database.h"
#include "storage/reader.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QSignalSpy>

#include <algorithm>
#include <cstdio>
#include <string>
#include <time.h>
#include <vector>

namespace {

struct Stats {
    double median, min, max;
};

Stats stats(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

std::vector<double> g_cpuMs;     // per open: process CPU time (every thread), open to first frame
std::vector<double> g_readyMs;   // per open: until ready (runs loaded, computed, charts built)

template <typename View, typename Load>
bool openOnce(Load load, double* ms, QString* error)
{
    QElapsedTimer t;
    t.start();
    const double cpu0 = processCpuMs();
    View view;
    view.resize(1600, 1000);
    QSignalSpy ready(&view, &View::ready);
    QSignalSpy failed(&view, &View::failed);
    load(view);
    while (ready.isEmpty() && failed.isEmpty())
        ready.wait(5);
    if (!failed.isEmpty()) {
        *error = failed[0][0].toString();
        return false;
    }
    g_readyMs.push_back(double(t.nsecsElapsed()) / 1e6);
    const QImage frame = view.grab().toImage();   // the first frame: every chart painted
    *ms = double(t.nsecsElapsed()) / 1e6;
    g_cpuMs.push_back(processCpuMs() - cpu0);
    return !frame.isNull();
}

}  // namespace

int main(int argc, char** argv)
{
    QString variantsFile, sweepFile;
    int repeat = 15;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--variants")
            variantsFile = QString::fromLocal8Bit(next());
        else if (a == "--sweep")
            sweepFile = QString::fromLocal8Bit(next());
        else if (a == "--repeat")
            repeat = std::max(1, std::stoi(next()));
        else {
            std::fprintf(stderr, "usage: bench_variantsview --variants FILE --sweep FILE [--repeat R]\n");
            return 2;
        }
    }
    if (variantsFile.isEmpty() && sweepFile.isEmpty()) {
        std::fprintf(stderr, "usage: bench_variantsview --variants FILE --sweep FILE [--repeat R]\n");
        return 2;
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QString error;
    if (!variantsFile.isEmpty()) {
        std::vector<wt::gui::CompareSelector> runs;
        try {
            wt::Database db(variantsFile.toStdString(), wt::OpenMode::ReadOnly);
            wt::Reader reader(db);
            const auto anchor = wt::newestCapture(reader.runs());
            if (!anchor) {
                std::fprintf(stderr, "bench_variantsview: no capture in %s\n", qPrintable(variantsFile));
                return 1;
            }
            for (int64_t id : wt::gui::VariantsActions::variantRunsOf(variantsFile, anchor->id))
                runs.push_back({variantsFile, id});
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_variantsview: %s\n", e.what());
            return 1;
        }
        std::vector<double> ms;
        for (int r = 0; r < repeat + 1; ++r) {
            double t = 0;
            if (!openOnce<wt::gui::VariantsView>([&](wt::gui::VariantsView& v) { v.load(runs); }, &t, &error)) {
                std::fprintf(stderr, "bench_variantsview: %s\n", qPrintable(error));
                return 1;
            }
            if (r > 0)   // the first open warms fonts and caches
                ms.push_back(t);
        }
        const Stats s = stats(ms), rs = stats(std::vector<double>(g_readyMs.begin() + 1, g_readyMs.end())),
                    cs = stats(std::vector<double>(g_cpuMs.begin() + 1, g_cpuMs.end()));
        std::printf("variants view, %zu runs: open to first frame %.1f ms wall median (%.1f - %.1f), of which to ready %.1f ms; "
                    "CPU %.1f ms median (%.1f - %.1f); %d opens\n",
                    runs.size(), s.median, s.min, s.max, rs.median, cs.median, cs.min, cs.max, repeat);
        g_readyMs.clear();
        g_cpuMs.clear();
    }
    if (!sweepFile.isEmpty()) {
        std::vector<double> ms;
        size_t runs = 0;
        for (int r = 0; r < repeat + 1; ++r) {
            double t = 0;
            if (!openOnce<wt::gui::ScalingView>(
                    [&](wt::gui::ScalingView& v) {
                        v.load(sweepFile, {});
                        QObject::connect(&v, &wt::gui::ScalingView::ready, &v, [&v, &runs] { runs = v.table().sweep.runIds.size(); });
                    },
                    &t, &error)) {
                std::fprintf(stderr, "bench_variantsview: %s\n", qPrintable(error));
                return 1;
            }
            if (r > 0)
                ms.push_back(t);
        }
        const Stats s = stats(ms), rs = stats(std::vector<double>(g_readyMs.begin() + 1, g_readyMs.end())),
                    cs = stats(std::vector<double>(g_cpuMs.begin() + 1, g_cpuMs.end()));
        std::printf("scaling view, %zu runs: open to first frame %.1f ms wall median (%.1f - %.1f), of which to ready %.1f ms; "
                    "CPU %.1f ms median (%.1f - %.1f); %d opens\n",
                    runs, s.median, s.min, s.max, rs.median, cs.median, cs.min, cs.max, repeat);
    }
    return 0;
}
