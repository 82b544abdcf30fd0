#include "cputracer.h"

#include "storage/json.h"

#include <ctime>
#include <fstream>
#include <thread>
#include <unistd.h>

namespace wt::capture {

CpuTracer::CpuTracer(RecordSink& sink, const std::atomic<bool>* stop) : Tracer(sink, stop)
{
    setOrigin(now());
}

int64_t CpuTracer::now() const
{
    timespec ts {};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void CpuTracer::launchBegin(const kernels::OpLaunch& op)
{
    checkStop();
    m_launchName = nameId(op.name);
    m_launchScope = currentInstance();
    recordLaunch(op, m_correlation + 1);   // the activity's correlation id (launchEnd)
    m_inLaunch = true;
    m_launchStart = now();   // last: the clock read is what the op's time starts from
}

void CpuTracer::launchEnd()
{
    int64_t end = now();
    if (!m_inLaunch)
        return;
    m_inLaunch = false;
    ActivityRecord r;
    r.kind = ActivityKind::Kernel;
    r.startNs = m_launchStart - m_origin;
    r.endNs = end - m_origin;
    r.name = m_launchName;
    r.scopeInstance = m_launchScope;
    r.correlationId = ++m_correlation;
    m_sink.activity(r);
}

std::string CpuTracer::cpuModelName()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) {
                std::string name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(' '));
                return name;
            }
        }
    }
    return "unknown processor";
}

std::string CpuTracer::cpuPropertiesJson()
{
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    return "{\"kind\":\"cpu\",\"model\":" + json::quote(cpuModelName()) + ",\"threads\":" +
           std::to_string(std::thread::hardware_concurrency()) + ",\"memory_bytes\":" +
           std::to_string(int64_t(pages) * int64_t(pageSize)) + "}";
}

}  // namespace wt::capture
