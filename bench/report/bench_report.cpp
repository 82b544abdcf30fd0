// Breakdown and report benchmark on a synthetic run of N kernels (step > phase > layer > op):
//   breakdown: open the file, read the run summary, scope tree, strings and stored totals
//              (BreakdownSource::load), then layer / op-in-softmax / kernel breakdowns
//              (computeBreakdown over the stored totals: what the view and `wheretime stats` do);
//   --full:    also load the run (RunData) and time the table's distributions (median/min/max)
//              and a range breakdown over half the span;
//   --report DIR: the whole headless report (load, charts, CSVs, index files).
//
//   bench_report --kernels 10000000 [--file PATH] [--full] [--report DIR] [--repeat 5]
//
// The run is generated into PATH (default /tmp/wheretime-bench-report-N.wt) when missing.
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/export/report.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/writer.h"

#include <QApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    int64_t kernels = 1000000;
    int repeat = 5;
    bool full = false;
    std::string file, reportDir;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_report: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--kernels")
            kernels = std::stoll(next());
        else if (a == "--file")
            file = next();
        else if (a == "--report")
            reportDir = next();
        else if (a == "--repeat")
            repeat = std::max(1, std::stoi(next()));
        else if (a == "--full")
            full = true;
        else {
            std::fprintf(stderr, "usage: bench_report [--kernels N] [--file PATH] [--full] [--report DIR] [--repeat R]\n");
            return 2;
        }
    }
    if (file.empty())
        file = "/tmp/wheretime-bench-report-" + std::to_string(kernels) + ".wt";
    QApplication app(argc, argv);
    if (!std::filesystem::exists(file)) {
        auto t = Clock::now();
        wt::Database db(file, wt::OpenMode::ReadWrite);
        wt::Writer writer(db);
        wt::synth::Options o;
        o.kernels = kernels;
        wt::synth::generate(writer, o);
        std::printf("generated %lld kernels into %s in %.0f ms\n", static_cast<long long>(kernels), file.c_str(), msSince(t));
    }

    using namespace wt;
    using namespace wt::gui;
    std::vector<double> load, layer, softmaxOps, kernel;
    size_t layers = 0, names = 0;
    for (int r = 0; r < repeat; ++r) {
        auto t = Clock::now();
        auto src = BreakdownSource::load(file, 1);
        load.push_back(msSince(t));
        t = Clock::now();
        layers = src->compute({GroupBy::Layer, {}}).rows.size();
        layer.push_back(msSince(t));
        t = Clock::now();
        src->compute({GroupBy::Op, {{GroupBy::Layer, "softmax"}}});
        softmaxOps.push_back(msSince(t));
        t = Clock::now();
        names = src->compute({GroupBy::Kernel, {}}).rows.size();
        kernel.push_back(msSince(t));
    }
    std::printf("run of %lld kernels, %zu layers, %zu kernel names (median of %d)\n", static_cast<long long>(kernels), layers,
                names, repeat);
    std::printf("  load (summary, tree, strings, stored totals)  %8.1f ms\n", median(load));
    std::printf("  by layer                                      %8.1f ms\n", median(layer));
    std::printf("  softmax by op (drill-down)                    %8.1f ms\n", median(softmaxOps));
    std::printf("  by kernel name                                %8.1f ms\n", median(kernel));
    std::printf("  open + layer breakdown                        %8.1f ms\n", median(load) + median(layer));

    if (full) {
        auto t = Clock::now();
        std::shared_ptr<const RunData> run = loadRun(file, 1);
        double loadRunMs = msSince(t);
        auto src = BreakdownSource::load(run);
        std::vector<double> dist, range;
        for (int r = 0; r < repeat; ++r) {
            t = Clock::now();
            src->compute({GroupBy::Kernel, {}});
            dist.push_back(msSince(t));
            t = Clock::now();
            src->computeRange({GroupBy::Layer, {}}, double(run->spanStartNs), double(run->spanStartNs + run->spanEndNs) / 2);
            range.push_back(msSince(t));
        }
        std::printf("  load run for the timeline (RunData)           %8.1f ms\n", loadRunMs);
        std::printf("  by kernel name with median/min/max            %8.1f ms\n", median(dist));
        std::printf("  by layer over half the span (range)           %8.1f ms\n", median(range));
    }
    if (!reportDir.empty()) {
        ReportOptions o;
        o.outDir = QString::fromStdString(reportDir);
        o.file = QString::fromStdString(file);
        auto t = Clock::now();
        ReportResult r = writeReport(o);
        if (!r.ok) {
            std::fprintf(stderr, "bench_report: %s\n", qPrintable(r.error));
            return 1;
        }
        std::printf("  full headless report (%lld files)             %8.1f ms\n", static_cast<long long>(r.files.size()),
                    msSince(t));
    }
    return 0;
}
