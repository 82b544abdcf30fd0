#include "cuptirecords.h"

#include "capture/kernelname.h"

namespace wt::capture {

uint64_t CuptiRecords::beginLaunch(int64_t scopeInstance, std::string_view opName)
{
    uint32_t op;
    auto it = m_opIndex.find(opName);
    if (it != m_opIndex.end()) {
        op = it->second;
    } else {
        op = uint32_t(m_ops.size());
        m_ops.emplace_back(opName);
        m_opNames.push_back(m_sink.name(opName));
        m_opIndex.emplace(std::string(opName), op);
    }
    uint64_t id = m_nextLaunch++;
    m_launches[0].emplace(id, Launch{scopeInstance, op});
    return id;
}

bool CuptiRecords::complete(uint64_t startNs, uint64_t endNs)
{
    if (startNs == 0 || endNs == 0 || endNs < startNs) {
        ++m_incomplete;
        return false;
    }
    return true;
}

void CuptiRecords::kernel(const Kernel& k)
{
    std::lock_guard lock(m_mutex);
    if (!complete(k.startNs, k.endNs))
        return;
    std::string_view rawName = k.rawName.empty() ? std::string_view("(unnamed kernel)") : k.rawName;
    uint32_t raw;
    auto it = m_rawIndex.find(rawName);
    if (it != m_rawIndex.end()) {
        raw = it->second;
    } else {
        Raw r;
        r.raw = std::string(rawName);
        r.own = isOwnKernel(rawName);
        r.demangled = demangle(rawName);
        r.demangledName = m_sink.name(r.demangled);
        raw = uint32_t(m_raws.size());
        m_raws.push_back(std::move(r));
        m_rawIndex.emplace(std::string(rawName), raw);
    }
    Pending p;
    p.record.device = k.device;
    p.record.stream = k.stream;
    p.record.kind = ActivityKind::Kernel;
    p.record.startNs = int64_t(k.startNs) - m_origin;
    p.record.endNs = int64_t(k.endNs) - m_origin;
    p.record.correlationId = k.correlation;
    p.record.config = k.config;
    p.correlation = k.correlation;
    p.raw = raw;
    m_pending.push_back(p);
}

void CuptiRecords::memory(const Memory& m)
{
    uint32_t name = m_sink.name(m.name);
    std::lock_guard lock(m_mutex);
    if (!complete(m.startNs, m.endNs))
        return;
    Pending p;
    p.record.device = m.device;
    p.record.stream = m.stream;
    p.record.kind = m.kind;
    p.record.startNs = int64_t(m.startNs) - m_origin;
    p.record.endNs = int64_t(m.endNs) - m_origin;
    p.record.name = name;
    p.record.correlationId = m.correlation;
    p.record.bytes = m.bytes;
    p.correlation = m.correlation;
    m_pending.push_back(p);
}

void CuptiRecords::api(const Api& a)
{
    ApiRecord r;
    r.threadId = a.threadId;
    r.startNs = int64_t(a.startNs) - m_origin;
    r.endNs = int64_t(a.endNs) - m_origin;
    r.name = m_sink.name(a.name.empty() ? std::string_view("cuda API call") : a.name);
    r.correlationId = a.correlation;
    std::lock_guard lock(m_mutex);
    m_api.push_back(r);
}

void CuptiRecords::external(uint32_t correlation, uint64_t externalId)
{
    std::lock_guard lock(m_mutex);
    m_external[0][correlation] = externalId;
}

void CuptiRecords::cuptiDropped(int64_t count)
{
    std::lock_guard lock(m_mutex);
    m_cuptiDropped += count;
}

const CuptiRecords::Launch* CuptiRecords::findLaunch(uint64_t externalId) const
{
    for (const auto& table : m_launches) {
        auto it = table.find(externalId);
        if (it != table.end())
            return &it->second;
    }
    return nullptr;
}

void CuptiRecords::flush()
{
    std::vector<Pending> pending;
    std::vector<ApiRecord> api;
    {
        std::lock_guard lock(m_mutex);
        pending.swap(m_pending);
        api.swap(m_api);
        for (Pending& p : pending) {
            uint64_t externalId = 0;
            // Not erased when used: an API call can make more than one device record (a
            // copy of pageable memory in pieces); the sweep below bounds the table.
            for (const auto& table : m_external) {
                auto it = table.find(p.correlation);
                if (it != table.end()) {
                    externalId = it->second;
                    break;
                }
            }
            const Launch* launch = externalId ? findLaunch(externalId) : nullptr;
            p.record.scopeInstance = launch ? launch->scopeInstance : 0;
            if (p.raw == kNoRaw)
                continue;
            const Raw& raw = m_raws[p.raw];
            bool byOp = raw.own && launch;
            p.record.name = byOp ? m_opNames[launch->op] : raw.demangledName;
            const std::string& readable = byOp ? m_ops[launch->op] : raw.demangled;
            uint64_t pair = (uint64_t(byOp ? launch->op + 1 : 0) << 32) | p.raw;
            if (readable != raw.raw && m_namePairs.insert(pair).second)
                m_rawNames[readable].insert(raw.raw);
        }
        // Entries older than the previous flush can no longer be used: forget them.
        m_external[1] = std::move(m_external[0]);
        m_external[0].clear();
    }
    m_launches[1] = std::move(m_launches[0]);
    m_launches[0].clear();
    for (const Pending& p : pending)
        m_sink.activity(p.record);
    for (const ApiRecord& a : api)
        m_sink.apiCall(a);
}

int64_t CuptiRecords::dropped() const
{
    std::lock_guard lock(m_mutex);
    return m_cuptiDropped + m_incomplete;
}

int64_t CuptiRecords::incomplete() const
{
    std::lock_guard lock(m_mutex);
    return m_incomplete;
}

std::map<std::string, std::set<std::string>> CuptiRecords::rawNames() const
{
    std::lock_guard lock(m_mutex);
    return m_rawNames;
}

size_t CuptiRecords::correlationsHeld() const
{
    std::lock_guard lock(m_mutex);
    return m_external[0].size() + m_external[1].size();
}

}  // namespace wt::capture
