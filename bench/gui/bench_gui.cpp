// Timeline benchmark: opens a synthetic run of N kernels on S streams under a realistic
// step > phase > layer > op tree and renders 1920x1080 frames offscreen at full view, 10%,
// 0.1% and a 1 us window while panning. Prints open to first frame (the overview drawn from the
// file's stored summary, what the window shows first), fully loaded to frame (the activities),
// frame-time percentiles and resident memory per kernel.
//
//   bench_gui --kernels 10000000 [--streams 8] [--file PATH] [--frames 120] [--png PREFIX] [--write-only]
//             [--group LAYER] [--api] [--find REGEX] [--summary-cost] [--memory-cap BYTES]
//             [--overview-budget BYTES]
//
// --overview-budget: the memory the summary's pass may hold when the run is written
// (storage/runoverview.h; default 4 GiB): over it the pass is the bounded one.
//
// --memory-cap: the timeline's detail under that cap (core/windowedrun.h). A run over it is not
// loaded whole: the bench draws the summary, loads the visible window (0.1% of the run, in the
// middle) through the chunk index, reads the run's skeleton (scope instances and lanes), loads
// the window again with exact lanes, and pans at each zoom, loading the next window whenever
// the view leaves the loaded one (timed apart: the GUI loads it on a worker meanwhile drawing
// the previous one). Prints the time to the visible window's detail, resident memory (now and
// peak), frame percentiles, and the breakdown of a range (1% of the run) read from its chunks.
//
// --api gives every kernel its launching API call on one of two host threads (the CPU rows,
// 10M kernels: 10M calls) and selects a kernel in the middle, so every frame draws its flow.
// --find times the search of REGEX over every kernel, scope and API call name (the find bar's
// marks) and paints the frames with its matches.
//
// --group marks every kernel under the named layer (the breakdown view's group selection) and
// prints the time to compute its marks; the frames then paint with it.
//
// The run is generated into PATH (default /tmp/wheretime-bench-gui-N.wt) when missing, so a
// second invocation measures the open path only.
#include "app/gui/breakdown/breakdownsource.h"
#include "app/gui/core/overviewrun.h"
#include "app/gui/core/rundata.h"
#include "app/gui/core/timelinelayout.h"
#include "app/gui/core/timeformat.h"
#include "app/gui/core/timelinesearch.h"
#include "app/gui/core/viewstate.h"
#include "app/gui/core/windowedrun.h"
#include "app/gui/widgets/timelinewidget.h"
#include "tests/support/synthrun.h"
#include "storage/database.h"
#include "storage/reader.h"
#include "storage/runoverview.h"
#include "storage/statement.h"
#include "storage/writer.h"

#include <QApplication>
#include <QImage>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

int64_t rssBytes()
{
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return int64_t(resident) * sysconf(_SC_PAGESIZE);
}

// CPU time of this thread: what a frame costs when other processes share the cores (the
// wall-clock figures include the time the scheduler gave to others).
double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// CPU time of the whole process (user + system, all threads): what a load costs that decodes
// on several threads.
double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double loadAverage()
{
    double l = 0;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &l) != 1)
            l = 0;
        std::fclose(f);
    }
    return l;
}

int64_t peakRssBytes()
{
    int64_t kb = 0;
    if (FILE* f = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f))
            if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1)
                break;
        std::fclose(f);
    }
    return kb * 1024;
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    size_t i = std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5));
    return v[i];
}

// The windowed path of --memory-cap (see the top of the file).
int benchWindowed(QApplication&, wt::gui::TimelineWidget& widget, QImage& image, const std::string& file, int64_t runId,
                  std::shared_ptr<const wt::gui::RunData> overview, const wt::gui::DetailIndex& index, int64_t cap, int frames,
                  const std::string& png, Clock::time_point t, double openCpu0, int64_t rss0)
{
    using namespace wt::gui;
    const double span = double(overview->spanEndNs - overview->spanStartNs);
    const double mid = double(overview->spanStartNs) + span / 2;
    const int width = widget.plotWidth();
    // The visible window: 0.1% of the run in the middle.
    const double v0 = mid - span * 0.0005, v1 = mid + span * 0.0005;
    widget.setViewRange(v0, v1);
    auto firstRange = index.chooseRange(v0, v1, width, windowBudget(cap, 0));
    if (!firstRange) {
        std::printf("the visible window (0.1%%) does not fit the cap: the summary only\n");
        return 1;
    }
    std::shared_ptr<const RunData> window = loadDetailWindow(file, runId, *overview, nullptr, index, firstRange->first, firstRange->second);
    widget.showWindow(window);
    widget.render(&image);
    const double windowMs = msSince(t), windowCpu = threadCpuMs() - openCpu0;
    if (!png.empty())
        image.save(QString::fromStdString(png + "-window.png"));
    LoadCallbacks cb;
    cb.keepActivities = false;
    const double c1 = threadCpuMs(), p1 = processCpuMs();
    auto ts = Clock::now();
    // The stored scope lanes (schema 6) when the file has them, else the pass over the activities.
    std::shared_ptr<const RunData> skeleton = loadStoredSkeleton(file, runId, *overview);
    if (!skeleton)
        skeleton = loadRun(file, runId, cb);
    const double skeletonMs = msSince(ts), skeletonCpu = threadCpuMs() - c1, skeletonAll = processCpuMs() - p1;
    const int64_t budget = windowBudget(cap, int64_t(skeleton->memoryBytes()));
    auto tw = Clock::now();
    const double c2 = threadCpuMs();
    auto range = index.chooseRange(v0, v1, width, budget);
    if (!range) {
        std::printf("the visible window (0.1%%) does not fit what the skeleton leaves of the cap\n");
        return 1;
    }
    window = loadDetailWindow(file, runId, *overview, skeleton.get(), index, range->first, range->second);
    widget.showWindow(window);
    widget.render(&image);
    const double exactMs = msSince(tw), exactCpu = threadCpuMs() - c2;
    const double allMs = msSince(t);
    const int64_t rss1 = rssBytes();
    std::printf("run: %lld kernels, %zu tracks, %zu scope instances held, %zu lanes (%s), span %s\n", (long long)skeleton->kernelCount,
                skeleton->tracks.size(), skeleton->instances.size(),
                skeleton->storedLanes ? skeleton->storedLaneFigures.size() : skeleton->lanes.size(),
                skeleton->storedLanes ? "stored: windows read their items" : "computed from the activities",
                qPrintable(formatDuration(span)));
    std::printf("visible window (0.1%%: %lld activities in its chunks): activities drawn %.0f ms after the open (thread CPU %.0f ms), "
                "scope lanes from the summary\n",
                (long long)index.countIn(firstRange->first, firstRange->second), windowMs, windowCpu);
    std::printf("skeleton (%s): %.0f ms (thread CPU %.0f ms, all threads %.0f ms), %.1f MiB = %.1f B per kernel\n",
                skeleton->storedLanes ? "stored lanes' figures" : "scope instances, spans, lanes", skeletonMs, skeletonCpu,
                skeletonAll, double(skeleton->memoryBytes()) / (1 << 20),
                double(skeleton->memoryBytes()) / double(std::max<int64_t>(skeleton->kernelCount, 1)));
    std::printf("visible window with exact lanes: %.0f ms more (thread CPU %.0f ms); all detail drawn %.1f s after the open; "
                "window %.1f MiB; load average %.1f\n",
                exactMs, exactCpu, allMs / 1000, double(window->memoryBytes()) / (1 << 20), loadAverage());
    std::printf("resident memory: +%.1f MiB after the window (%.1f B per kernel); peak %.1f MiB (process)\n",
                double(rss1 - rss0) / (1 << 20), double(rss1 - rss0) / double(std::max<int64_t>(skeleton->kernelCount, 1)),
                double(peakRssBytes()) / (1 << 20));

    struct Zoom {
        const char* name;
        double spanNs;
    } zooms[] = {{"full view", span}, {"10%", span * 0.1}, {"1%", span * 0.01}, {"0.1%", span * 0.001}, {"1 us", 1000.0}};
    for (const Zoom& z : zooms) {
        widget.setViewRange(mid - z.spanNs / 2, mid + z.spanNs / 2);
        std::vector<double> times, cpuTimes, loads;
        int summaryFrames = 0;
        size_t items = 0;
        auto ensure = [&] {
            // The next window when the view left the loaded one (as the main window's worker).
            const double a = widget.viewStartNs(), b = widget.viewEndNs(), m = (b - a) / width * DetailIndex::kMarginPx;
            if (double(window->detailStartNs) <= a - m && double(window->detailEndNs) >= b + m)
                return;
            auto r = index.chooseRange(a, b, width, budget);
            if (!r)
                return;
            auto lt = Clock::now();
            window.reset();   // one window held at a time (the GUI holds two while it swaps)
            window = loadDetailWindow(file, runId, *overview, skeleton.get(), index, r->first, r->second);
            widget.showWindow(window);
            loads.push_back(msSince(lt));
        };
        ensure();
        widget.render(&image);
        for (int f = 0; f < frames; ++f) {
            ensure();
            auto ft = Clock::now();
            const double fc = threadCpuMs();
            if (z.spanNs >= span)
                widget.setViewRange(double(overview->spanStartNs) + (f % 2), double(overview->spanEndNs) + (f % 2));
            else
                widget.panByFraction(f % 40 < 20 ? 0.01 : -0.01);
            widget.render(&image);
            times.push_back(msSince(ft));
            cpuTimes.push_back(threadCpuMs() - fc);
            items += widget.drawList().itemCount();
            summaryFrames += !widget.caption().isEmpty();
        }
        if (!png.empty())
            image.save(QString::fromStdString(png + "-w" + std::to_string(&z - zooms) + ".png"));
        std::printf("%-9s  frame p50 %6.2f ms  p95 %6.2f ms  max %6.2f ms  (CPU p50 %5.2f p95 %5.2f ms; %zu items per frame; "
                    "%d of %d frames on the summary; %zu window loads, p50 %.0f ms, max %.0f ms)\n",
                    z.name, percentile(times, 0.5), percentile(times, 0.95), percentile(times, 1.0), percentile(cpuTimes, 0.5),
                    percentile(cpuTimes, 0.95), items / size_t(std::max(frames, 1)), summaryFrames, frames, loads.size(),
                    percentile(loads, 0.5), percentile(loads, 1.0));
    }
    // A time range's breakdown over the cap (the breakdown view's range selection): 1% of the
    // run in the middle, only that range's chunks read (BreakdownSource::computeRange).
    {
        window.reset();
        auto source = BreakdownSource::loadStored(overview);
        const double r0 = mid - span * 0.005, r1 = mid + span * 0.005;
        auto tr = Clock::now();
        const double cr = threadCpuMs();
        const BreakdownResult r = source->computeRange(wt::GroupLevel{}, r0, r1);
        std::printf("range breakdown (1%% of the run, by layer): %.0f ms (thread CPU %.0f ms), %zu rows, %s of kernel time; "
                    "peak %.1f MiB (process)\n",
                    msSince(tr), threadCpuMs() - cr, r.rows.size(), qPrintable(formatDuration(double(r.totalNs))),
                    double(peakRssBytes()) / (1 << 20));
    }
    std::printf("resident memory at the end: +%.1f MiB; peak %.1f MiB (process)\n", double(rssBytes() - rss0) / (1 << 20),
                double(peakRssBytes()) / (1 << 20));
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    int64_t kernels = 1000000;
    int streams = 8;
    int frames = 120;
    bool writeOnly = false;
    std::string png;   // where to save the last frame of each zoom (NAME-ZOOM.png), to look at
    std::string file;
    std::string group;   // layer name: frames with this layer's kernels marked
    bool api = false;
    std::string find;
    bool summaryCost = false;   // time computing the run's summary again (what finishing a run adds)
    int64_t memoryCap = 0;      // > 0: the windowed detail under this cap
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_gui: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--kernels")
            kernels = std::stoll(next());
        else if (a == "--streams")
            streams = std::stoi(next());
        else if (a == "--frames")
            frames = std::stoi(next());
        else if (a == "--file")
            file = next();
        else if (a == "--png")
            png = next();
        else if (a == "--write-only")
            writeOnly = true;
        else if (a == "--group")
            group = next();
        else if (a == "--api")
            api = true;
        else if (a == "--find")
            find = next();
        else if (a == "--summary-cost")
            summaryCost = true;
        else if (a == "--memory-cap") {
            const std::string v = next();
            auto c = wt::gui::parseByteSize(QString::fromStdString(v));
            if (!c) {
                std::fprintf(stderr, "bench_gui: --memory-cap needs a size in bytes (e.g. 4G, 512M), got '%s'\n", v.c_str());
                return 2;
            }
            memoryCap = *c;
        }
        else if (a == "--overview-budget") {
            // Memory the summary's pass may hold when the run is written (or --summary-cost).
            const std::string v = next();
            auto c = wt::gui::parseByteSize(QString::fromStdString(v));
            if (!c || *c <= 0) {
                std::fprintf(stderr, "bench_gui: --overview-budget needs a size in bytes (e.g. 4G, 512M), got '%s'\n", v.c_str());
                return 2;
            }
            wt::setOverviewMemoryBudget(*c);
        }
        else {
            std::fprintf(stderr, "usage: bench_gui [--kernels N] [--streams S] [--frames F] [--file PATH] [--png PREFIX] [--write-only] [--group LAYER] [--api] [--find REGEX] [--summary-cost] [--memory-cap BYTES] [--overview-budget BYTES]\n");
            return 2;
        }
    }
    if (file.empty())
        file = "/tmp/wheretime-bench-gui-" + std::to_string(kernels) + "-" + std::to_string(streams) + (api ? "-api" : "") + ".wt";
    if (!std::filesystem::exists(file)) {
        auto t = Clock::now();
        std::filesystem::remove(file + ".part");
        {
            wt::Database db(file + ".part", wt::OpenMode::ReadWrite);
            wt::Writer writer(db);
            wt::synth::Options o;
            o.kernels = kernels;
            o.streams = streams;
            o.name = "bench-" + std::to_string(kernels);
            o.apiCalls = api;
            wt::synth::generate(writer, o);
        }   // closed: the WAL is checkpointed into the file before it is renamed
        std::filesystem::rename(file + ".part", file);
        std::printf("generated %s: %lld kernels in %.1f s\n", file.c_str(), (long long)kernels, msSince(t) / 1000);
    }
    if (summaryCost) {
        // What Writer::finishRun adds: the summary computed from the stored run (read-write
        // connection, nothing stored).
        wt::Database db(file, wt::OpenMode::ReadWrite);
        const int64_t id = wt::Reader(db).resolveRun("");
        auto t = Clock::now();
        const double c0 = threadCpuMs();
        const wt::RunOverview ov = wt::computeRunOverview(db, id);
        std::printf("summary computed in %.0f ms (thread CPU %.0f ms): %zu rows, grid %u x %lld ns\n", msSince(t),
                    threadCpuMs() - c0, ov.rows.size(), ov.bucketCount, (long long)ov.bucketNs);
    }
    if (writeOnly)
        return 0;

    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    wt::gui::ViewState state;
    wt::gui::TimelineWidget widget(&state);
    widget.resize(1920, 1080);
    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    widget.render(&image);   // warm up fonts and the paint engine before measuring
    const int64_t rss0 = rssBytes();

    auto t = Clock::now();
    const double openCpu0 = threadCpuMs(), processCpu0 = processCpuMs();
    int64_t runId = 0;
    {
        wt::Database db(file, wt::OpenMode::ReadOnly);
        runId = wt::Reader(db).resolveRun("");
    }
    // Stage 1: the overview from the stored summary, drawn (what the window shows first).
    std::shared_ptr<const wt::gui::RunData> overview = wt::gui::loadOverviewRun(file, runId);
    const double overviewLoadMs = msSince(t);
    const bool haveOverview = bool(overview);
    double summaryFrameMs = -1, summaryCpuMs = -1;
    if (overview) {
        widget.showOverview(overview);
        widget.render(&image);
        summaryFrameMs = msSince(t);
        summaryCpuMs = threadCpuMs() - openCpu0;
        if (!png.empty())
            image.save(QString::fromStdString(png + "-summary.png"));
    }
    if (memoryCap > 0 && overview) {
        const wt::gui::DetailIndex index = wt::gui::DetailIndex::load(file, runId);
        std::printf("chunk index: %lld activities, read in %.0f ms since the open; %s the %s cap (%lld B per activity loaded whole)\n",
                    (long long)index.activities(), msSince(t), index.fits(memoryCap) ? "fits" : "over",
                    qPrintable(wt::gui::formatByteSize(memoryCap)), (long long)wt::gui::kLoadedBytesPerActivity);
        if (!index.fits(memoryCap)) {
            std::printf("open to first frame (stored summary): %.0f ms (summary read %.0f ms; thread CPU %.0f ms)\n",
                        summaryFrameMs, overviewLoadMs, summaryCpuMs);
            return benchWindowed(app, widget, image, file, runId, overview, index, memoryCap, frames, png, t, openCpu0, rss0);
        }
    }
    // Stage 2: the activities (the loader's worker), then the loaded run's first frame.
    std::shared_ptr<const wt::gui::RunData> run = wt::gui::loadRun(file, runId);
    double loadMs = msSince(t);
    state.setRun(run);
    widget.render(&image);
    double firstFrameMs = msSince(t);
    overview.reset();   // the widget dropped it for the loaded run: not part of the run's memory
    const double openCpuMs = threadCpuMs() - openCpu0, openProcessCpuMs = processCpuMs() - processCpu0;
    const int64_t rss1 = rssBytes();
    std::printf("run: %lld kernels, %zu tracks, %zu scope instances, %zu lanes, span %s\n",
                (long long)run->kernelCount, run->tracks.size(), run->instances.size(), run->lanes.size(),
                qPrintable(wt::gui::formatDuration(double(run->spanEndNs - run->spanStartNs))));
    int64_t summaryBytes = 0;
    {
        wt::Database db(file, wt::OpenMode::ReadOnly);
        wt::Statement st(db.handle(), "SELECT coalesce(sum(length(data)), 0) FROM overview_rows WHERE run_id=?");
        st.bind(1, runId);
        if (st.step())
            summaryBytes = st.int64(0);
    }
    if (haveOverview)
        std::printf("open to first frame (stored summary, %.0f KiB): %.0f ms (summary read %.0f ms, layout + frame %.0f ms; thread CPU %.0f ms)\n",
                    double(summaryBytes) / 1024, summaryFrameMs, overviewLoadMs, summaryFrameMs - overviewLoadMs, summaryCpuMs);
    else
        std::printf("open to first frame (stored summary): none in the file\n");
    std::printf("fully loaded to frame: %.0f ms (activities load %.0f ms, layout + frame %.0f ms; CPU %.0f ms this thread, "
                "%.0f ms all threads; load average %.1f)\n",
                firstFrameMs, loadMs - (haveOverview ? summaryFrameMs : 0), firstFrameMs - loadMs, openCpuMs, openProcessCpuMs,
                loadAverage());
    std::printf("resident memory: +%.1f MiB after load = %.1f B per kernel (run arrays %.1f B per kernel)\n",
                double(rss1 - rss0) / (1 << 20), double(rss1 - rss0) / double(run->kernelCount),
                double(run->memoryBytes()) / double(run->kernelCount));

    if (!group.empty()) {
        // As the breakdown builds it for a layer slice: every node that is, or is under, a
        // layer node of that name.
        wt::gui::GroupSelection g;
        g.label = QStringLiteral("layer ") + QString::fromStdString(group);
        g.anyScope = false;
        g.nodes.resize(run->nodes.size());
        for (size_t n = 0; n < run->nodes.size(); ++n) {
            const wt::gui::ScopeNodeData& layer = run->nodes[run->nodes[n].layerNode];
            g.nodes[n] = layer.level == QLatin1String("layer") && layer.name == QString::fromStdString(group);
        }
        auto gt = Clock::now();
        state.setGroupSelection(g);
        const double groupMs = msSince(gt);
        std::printf("group %s: %lld of %lld activities marked, marks computed in %.1f ms (%.2f B per activity)\n",
                    group.c_str(), (long long)state.groupMarks()->activityCount, (long long)run->activityCount, groupMs,
                    double(state.groupMarks()->bytes()) / double(std::max<int64_t>(run->activityCount, 1)));
    }

    size_t apiCalls = 0;
    for (const wt::gui::ApiRowData& r : run->apiRows)
        apiCalls += r.size();
    if (apiCalls > 0)
        std::printf("API calls: %zu on %zu rows\n", apiCalls, run->apiRows.size());
    if (api && !run->tracks.empty()) {
        // A kernel in the middle of the run, selected: its flow to its launching call is drawn.
        for (uint32_t t = 0; t < run->tracks.size(); ++t)
            if (run->tracks[t].kind == wt::TrackKind::Kernel && run->tracks[t].size() > 0) {
                state.setSelection(wt::gui::Selection{wt::gui::Selection::Activity, t, uint32_t(run->tracks[t].size() / 2)});
                break;
            }
    }
    if (!find.empty()) {
        auto st = Clock::now();
        const wt::gui::SearchResult r = wt::gui::searchRun(*run, QString::fromStdString(find), true);
        const double searchMs = msSince(st);
        std::printf("find '%s': %lld matches (%lld activities, %lld scopes, %lld API calls) among %lld names in %.1f ms%s\n",
                    find.c_str(), (long long)r.count(), (long long)r.activityMatches, (long long)r.scopeMatches,
                    (long long)r.apiMatches, (long long)(run->activityCount + int64_t(run->instances.size()) + int64_t(apiCalls)),
                    searchMs, r.error.isEmpty() ? "" : qPrintable(QStringLiteral(" (") + r.error + QStringLiteral(")")));
        widget.findText(QString::fromStdString(find), true);   // the frames paint its marks
    }

    // Frames while panning: each frame moves the view by 1% (pan) and then renders, so the
    // figure includes preparing the draw list and painting it.
    const double span = double(run->spanEndNs - run->spanStartNs);
    const double mid = double(run->spanStartNs) + span / 2;
    struct Zoom {
        const char* name;
        double spanNs;
    } zooms[] = {{"full view", span}, {"10%", span * 0.1}, {"0.1%", span * 0.001}, {"1 us", 1000.0}};
    bool allOk = true;
    for (const Zoom& z : zooms) {
        widget.setViewRange(mid - z.spanNs / 2, mid + z.spanNs / 2);
        widget.render(&image);
        std::vector<double> times, cpuTimes, prepTimes;
        size_t items = 0;
        wt::gui::DrawList scratch;
        for (int f = 0; f < frames; ++f) {
            auto ft = Clock::now();
            const double fc = threadCpuMs();
            if (z.spanNs >= span)
                widget.setViewRange(double(run->spanStartNs) + (f % 2), double(run->spanEndNs) + (f % 2));   // re-prepare
            else
                widget.panByFraction(f % 40 < 20 ? 0.01 : -0.01);
            widget.render(&image);
            times.push_back(msSince(ft));
            cpuTimes.push_back(threadCpuMs() - fc);
            items += widget.drawList().itemCount();
            // The frame's draw list alone (what a pan or zoom costs before painting).
            auto pt = Clock::now();
            wt::gui::buildDrawList(*run, widget.layout(), widget.drawList().mapping, {}, scratch, {}, widget.groupMarks());
            prepTimes.push_back(msSince(pt));
        }
        if (!png.empty())
            image.save(QString::fromStdString(png + "-" + std::to_string(&z - zooms) + ".png"));
        if (std::getenv("BENCH_GUI_ROWS")) {
            for (size_t r = 0; r < widget.drawList().rows.size(); ++r)
                std::printf("  row %zu (%s): %zu items\n", r, qPrintable(widget.layout().rows()[r].label),
                            widget.drawList().rows[r].size());
        }
        double p95 = percentile(times, 0.95);
        allOk &= p95 <= 16.0;
        std::printf("%-9s  frame p50 %6.2f ms  p95 %6.2f ms  max %6.2f ms  (CPU p50 %5.2f p95 %5.2f ms; draw list p50 %5.2f ms; "
                    "%zu draw items per frame)\n",
                    z.name, percentile(times, 0.5), p95, percentile(times, 1.0), percentile(cpuTimes, 0.5),
                    percentile(cpuTimes, 0.95), percentile(prepTimes, 0.5), items / size_t(std::max(frames, 1)));
    }
    std::printf("targets: first frame (summary) <= 1 s: %s; p95 <= 16 ms: %s; <= 64 B/kernel: %s\n",
                haveOverview && summaryFrameMs <= 1000 ? "met" : "MISSED", allOk ? "met" : "MISSED",
                double(rss1 - rss0) / double(run->kernelCount) <= 64 ? "met" : "MISSED");
    return 0;
}
