// Synchronized timelines benchmark: opens BASE and OTHER, two synthetic runs of N kernels
// (different seeds: other kernel times, the same structure), in the compare window's
// CompareTimelines (both runs load at once on their own workers, then align at a step and
// paint) and prints open-to-first-frame of both, wall and process CPU time, then the time of
// a synchronized zoom step (both timelines prepare and paint).
//
//   bench_comparetimelines [--kernels 1000000] [--file PATH] [--repeat 3]
//
// The runs are generated into PATH (default /tmp/wheretime-bench-compare-N.wt) when missing.
#include "app/gui/compare/comparetimelines.h"
#include "app/gui/widgets/timelinewidget.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/writer.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QSignalSpy>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <time.h>
#include <vector>

namespace {

double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

}  // namespace

int main(int argc, char** argv)
{
    int64_t kernels = 1000000;
    int repeat = 3;
    std::string file;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--kernels")
            kernels = std::stoll(next());
        else if (a == "--file")
            file = next();
        else if (a == "--repeat")
            repeat = std::max(1, std::stoi(next()));
        else {
            std::fprintf(stderr, "usage: bench_comparetimelines [--kernels N] [--file PATH] [--repeat R]\n");
            return 2;
        }
    }
    if (file.empty())
        file = "/tmp/wheretime-bench-compare-" + std::to_string(kernels) + ".wt";
    if (!std::filesystem::exists(file)) {
        std::filesystem::remove(file + ".part");
        {
            wt::Database db(file + ".part", wt::OpenMode::ReadWrite);
            wt::Writer writer(db);
            for (uint64_t seed : {1, 2}) {
                wt::synth::Options o;
                o.kernels = kernels;
                o.seed = seed;
                o.name = seed == 1 ? "base" : "other";
                wt::synth::generate(writer, o);
            }
        }
        std::filesystem::rename(file + ".part", file);
        std::printf("generated %s: 2 runs of %lld kernels\n", file.c_str(), (long long)kernels);
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QString path = QString::fromStdString(file);
    wt::gui::CompareSelector base{path, 0}, other{path, 0};
    {
        wt::Database db(file, wt::OpenMode::ReadOnly);
        wt::Reader reader(db);
        base.runId = reader.resolveRun("base");
        other.runId = reader.resolveRun("other");
    }
    std::vector<double> wall, cpu;
    for (int r = 0; r < repeat; ++r) {
        wt::gui::CompareTimelines t;
        t.resize(1920, 1080);
        QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
        t.render(&image);   // fonts and the paint engine warm before measuring
        QSignalSpy ready(&t, &wt::gui::CompareTimelines::ready);
        QElapsedTimer clock;
        clock.start();
        const double cpu0 = processCpuMs();
        t.load(base, other);
        if (!ready.wait(120000)) {
            std::fprintf(stderr, "bench_comparetimelines: the runs did not load\n");
            return 1;
        }
        t.render(&image);   // both timelines' first frame
        wall.push_back(double(clock.nsecsElapsed()) / 1e6);
        cpu.push_back(processCpuMs() - cpu0);
        if (r == repeat - 1) {
            QElapsedTimer z;
            z.start();
            const int steps = 20;
            for (int i = 0; i < steps; ++i) {
                t.baseTimeline()->zoomBy(i % 2 ? 1 / 1.5 : 1.5);
                t.render(&image);
            }
            std::printf("synchronized zoom step (both prepare + paint): %.1f ms mean over %d\n",
                        double(z.nsecsElapsed()) / 1e6 / steps, steps);
            std::printf("runs: %lld + %lld kernels\n", (long long)t.baseState()->run()->kernelCount,
                        (long long)t.otherState()->run()->kernelCount);
        }
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    std::printf("open synchronized timelines (load both on workers, align, first frame of both): "
                "median %.0f ms wall (min %.0f, max %.0f), process CPU median %.0f ms, over %d opens\n",
                wall[wall.size() / 2], wall.front(), wall.back(), cpu[cpu.size() / 2], repeat);
    return 0;
}
