// Start-to-exit time and peak resident memory of CLI commands (the issue-15 targets: `wheretime
// runs` and `wheretime stats` on a small file under 20 ms and 30 MB). Each command runs R times
// as a child process (fork + exec, stdout to /dev/null); the wall time is measured around
// fork..wait4, the CPU time and the peak RSS are the child's (ru_utime + ru_stime, ru_maxrss)
// from wait4.
//
// usage: bench_clistart [--repeats R] WHERETIME FILE
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Sample {
    double ms;
    double cpuMs;   // user + system time of the child: what the start costs, less the machine's load
    long rssKb;
};

bool runOnce(const std::vector<std::string>& argv, Sample& s)
{
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execv(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    struct rusage ru {};
    if (wait4(pid, &status, 0, &ru) != pid)
        return false;
    s.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    s.rssKb = ru.ru_maxrss;
    s.cpuMs = (double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

int main(int argc, char** argv)
{
    int repeats = 20;
    std::vector<std::string> pos;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = std::max(1, std::atoi(argv[++i]));
        else
            pos.push_back(argv[i]);
    }
    if (pos.size() != 2) {
        std::fprintf(stderr, "usage: bench_clistart [--repeats R] WHERETIME FILE\n");
        return 2;
    }
    const std::string& exe = pos[0];
    const std::string& file = pos[1];
    const std::vector<std::vector<std::string>> commands{
        {exe, "--version"}, {exe, "runs", file}, {exe, "stats", file}};
    std::printf("%-22s %10s %10s %14s %12s\n", "command", "median ms", "max ms", "median CPU ms", "peak RSS MB");
    int failures = 0;
    for (const auto& c : commands) {
        std::vector<Sample> samples;
        for (int r = 0; r < repeats; ++r) {
            Sample s {};
            if (!runOnce(c, s)) {
                std::fprintf(stderr, "bench_clistart: '%s %s' failed\n", c[0].c_str(), c[1].c_str());
                return 1;
            }
            samples.push_back(s);
        }
        std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.ms < b.ms; });
        std::vector<double> cpu;
        for (const Sample& s : samples)
            cpu.push_back(s.cpuMs);
        std::sort(cpu.begin(), cpu.end());
        long rss = 0;
        for (const Sample& s : samples)
            rss = std::max(rss, s.rssKb);
        std::string name = "wheretime " + c[1];
        std::printf("%-22s %10.1f %10.1f %14.1f %12.1f\n", name.c_str(), samples[samples.size() / 2].ms, samples.back().ms,
                    cpu[cpu.size() / 2], double(rss) / 1024.0);
        if (c[1] != "--version" && (rss > 30 * 1024 || samples[samples.size() / 2].ms > 20))
            ++failures;
    }
    std::printf("%s\n", failures ? "over target (30 MB, 20 ms) for some command" : "within targets (30 MB, 20 ms)");
    return 0;
}
