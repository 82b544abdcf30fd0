// bench_job: `wheretime job DIR` over a job of many rank files (issue 29: 1,024 ranks x 100k
// kernels opened from the stored figures in at most 5 s and 2 GB). The rank files are written
// directly as wheretime files (tests/support/synthrun, one seed per rank: no JSON to import), the
// durations of every rank scaled a little (0-2%) and those of every 128th rank (77, 205, ...) by
// 1.3, so the job has stragglers to find; they are written once into DIR (reused when there),
// and removed at the end unless --keep. The open runs in a child process (fork), measured by
// wait4: wall, CPU (user + system, all threads) and peak RSS of the open alone; it is repeated
// --repeats times (the page cache is warm after the first).
// usage: bench_job [--ranks N] [--kernels N] [--dir DIR] [--threads N] [--repeats N] [--keep]
#include "analysis/jobsummary.h"
#include "analysis/jobtable.h"
#include "render/tablewriter.h"
#include "storage/database.h"
#include "storage/writer.h"
#include "tests/support/synthrun.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

double seconds(const timeval& t)
{
    return double(t.tv_sec) + 1e-6 * double(t.tv_usec);
}

bool planted(int rank)
{
    return rank % 128 == 77;
}

double scaleOf(int rank)
{
    return planted(rank) ? 1.3 : 1.0 + 0.002 * double((rank * 37) % 11);
}

}  // namespace

int main(int argc, char** argv)
{
    int ranks = 1024, threads = 0, repeats = 3;
    long kernels = 100000;
    bool keep = false;
    std::string dir = "/tmp/wt-bench-job";
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--ranks" && i + 1 < argc)
            ranks = std::atoi(argv[++i]);
        else if (a == "--kernels" && i + 1 < argc)
            kernels = std::atol(argv[++i]);
        else if (a == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else if (a == "--threads" && i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else if (a == "--repeats" && i + 1 < argc)
            repeats = std::max(1, std::atoi(argv[++i]));
        else if (a == "--keep")
            keep = true;
        else {
            std::fprintf(stderr, "usage: bench_job [--ranks N] [--kernels N] [--dir DIR] [--threads N] [--repeats N] [--keep]\n");
            return 2;
        }
    }
    if (ranks < 1 || kernels < 1) {
        std::fprintf(stderr, "bench_job: --ranks and --kernels must be at least 1\n");
        return 2;
    }
    dir += "/" + std::to_string(ranks) + "x" + std::to_string(kernels);
    const std::string mk = "mkdir -p '" + dir + "'";
    if (std::system(mk.c_str()) != 0)
        return 1;

    // Generate the missing rank files on both cores.
    auto g0 = std::chrono::steady_clock::now();
    std::atomic<int> next{0}, made{0};
    auto gen = [&] {
        for (int r; (r = next.fetch_add(1)) < ranks;) {
            const std::string p = dir + "/rank-" + std::to_string(r) + ".wt";
            struct stat st {};
            if (::stat(p.c_str(), &st) == 0)
                continue;
            const std::string tmp = dir + "/.rank-" + std::to_string(r) + ".tmp";
            {
                wt::Database db(tmp, wt::OpenMode::ReadWrite);
                wt::Writer w(db);
                wt::synth::Options o;
                o.kernels = kernels;
                o.streams = 4;
                o.seed = uint64_t(r) + 1;
                o.durationScale = scaleOf(r);
                o.name = "rank " + std::to_string(r);
                o.metadata = {{"kineto.distributedInfo", "{\"backend\": \"nccl\", \"rank\": " + std::to_string(r) +
                                                             ", \"world_size\": " + std::to_string(ranks) + "}"}};
                wt::synth::generate(w, o);
            }
            std::rename(tmp.c_str(), p.c_str());
            ++made;
        }
    };
    {
        std::vector<std::thread> pool;
        for (unsigned t = 1; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
            pool.emplace_back(gen);
        gen();
        for (auto& t : pool)
            t.join();
    }
    const double genSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
    long long bytes = 0;
    for (int r = 0; r < ranks; ++r) {
        struct stat st {};
        if (::stat((dir + "/rank-" + std::to_string(r) + ".wt").c_str(), &st) == 0)
            bytes += st.st_size;
    }
    std::printf("%d ranks x %ld kernels: %.0f MB of rank files (%d written in %.1f s)\n", ranks, kernels, double(bytes) / 1e6,
                made.load(), genSeconds);

    int status = 0;
    for (int rep = 0; rep < repeats; ++rep) {
        double load[1] = {0};
        getloadavg(load, 1);
        int pipefd[2];
        if (::pipe(pipefd) != 0)
            return 1;
        auto t0 = std::chrono::steady_clock::now();
        const pid_t child = ::fork();
        if (child == 0) {
            ::close(pipefd[0]);
            const wt::JobSummary job = wt::openJob(wt::jobFiles(dir), threads);
            // What the command prints, rendered (not written): the whole cost of `job DIR --json`.
            const std::string out = wt::render::jsonRows(wt::jobRanksTable(job)) + wt::render::jsonRows(wt::jobLayersTable(job));
            int found = 0, right = 0, steps = 0;
            for (const wt::RankSummary& r : job.ranks) {
                steps += int(r.stepKernelNs.size());
                if (r.straggler) {
                    ++found;
                    right += planted(int(r.rank));
                }
            }
            int expected = 0;
            for (int r = 0; r < ranks; ++r)
                expected += planted(r);
            char line[256];
            const int n = std::snprintf(line, sizeof line, "%zu ranks, %zu left out, %d steps, %zu bytes of JSON; stragglers %d (%d planted, %d of them found)\n",
                                        job.ranks.size(), job.failures.size(), steps, out.size(), found, expected, right);
            if (::write(pipefd[1], line, size_t(n)) != n)
                _exit(1);
            _exit(found == right && right == expected ? 0 : 3);
        }
        ::close(pipefd[1]);
        int ws = 0;
        rusage u{};
        ::wait4(child, &ws, 0, &u);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        char buf[512] = {};
        const ssize_t got = ::read(pipefd[0], buf, sizeof buf - 1);
        ::close(pipefd[0]);
        std::printf("open %d: %.2f s wall, %.2f s CPU (user %.2f + system %.2f), peak RSS %ld MB, load average %.1f at start; %s", rep + 1,
                    wall, seconds(u.ru_utime) + seconds(u.ru_stime), seconds(u.ru_utime), seconds(u.ru_stime), u.ru_maxrss / 1024, load[0],
                    got > 0 ? buf : "(no result)\n");
        if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
            status = 1;
    }
    if (!keep) {
        for (int r = 0; r < ranks; ++r)
            ::unlink((dir + "/rank-" + std::to_string(r) + ".wt").c_str());
        ::rmdir(dir.c_str());
    }
    return status;
}
