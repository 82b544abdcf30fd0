// The writer's cost on a 1,000-row table of 13 columns (a breakdown by kernel): text, CSV and
// JSON, best of 50 runs each. Target: under 1 ms per format (docs/performance.md).
//   bench_tablewriter [--rows N]
#include "render/tablewriter.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv)
{
    size_t rows = 1000;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--rows") == 0)
            rows = size_t(std::stoul(argv[i + 1]));
    wt::Table t;
    t.id = "bench";
    t.add("name", "kernel", wt::Unit::Text).add("path", "path", wt::Unit::Text, false).add("time_ns", "time", wt::Unit::Ns)
        .add("share", "share", wt::Unit::Share).add("count", "count", wt::Unit::Count).add("mean_ns", "mean", wt::Unit::Ns)
        .add("median_ns", "median", wt::Unit::Ns).add("min_ns", "min", wt::Unit::Ns).add("max_ns", "max", wt::Unit::Ns)
        .add("flops", "FLOPs", wt::Unit::Flops).add("bytes", "bytes", wt::Unit::Bytes).add("flop_per_s", "FLOP/s", wt::Unit::FlopPerS)
        .add("bytes_per_s", "B/s", wt::Unit::BytesPerS);
    for (size_t i = 0; i < rows; ++i) {
        const std::string name = "void at::native::vectorized_elementwise_kernel<4, float>(int) #" + std::to_string(i);
        t.addRow() = {name, "decoder." + std::to_string(i % 24) + "/" + name, int64_t(1000 + i * 37), 1.0 / double(i + 3),
                      int64_t(i + 1), 1234.5 + double(i), int64_t(1200 + i), int64_t(900), int64_t(4000 + i), 1.5e9 * double(i),
                      3.2e8 * double(i), 1.1e12 / double(i + 1), 9.9e10 / double(i + 1)};
    }
    auto best = [&](auto&& fn) {
        double bestMs = 1e9;
        size_t bytes = 0;
        for (int r = 0; r < 50; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            bytes = fn().size();
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            bestMs = std::min(bestMs, ms);
        }
        return std::make_pair(bestMs, bytes);
    };
    const auto text = best([&] { return wt::render::text(t); });
    const auto csv = best([&] { return wt::render::csv(t); });
    const auto json = best([&] { return wt::render::jsonRows(t); });
    std::printf("%zu rows x %zu columns: text %.3f ms (%zu bytes), csv %.3f ms (%zu bytes), json %.3f ms (%zu bytes)\n", rows,
                t.columns.size(), text.first, text.second, csv.first, csv.second, json.first, json.second);
    return 0;
}
