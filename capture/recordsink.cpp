#include "recordsink.h"

#include "storage/storageerror.h"
#include "storage/writer.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>

namespace wt::capture {

namespace {

// The calling thread's OS id (what CUPTI reports with CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM),
// read once per thread.
int64_t osThreadId()
{
    static thread_local const int64_t tid = int64_t(::syscall(SYS_gettid));
    return tid;
}

std::string processName()
{
    std::ifstream in("/proc/self/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

// The calling thread as a host_threads row: its own name, "main" for the process's first
// thread while it carries the process's default name (the kernel gives it the command's).
HostThread describeCallingThread(int64_t id)
{
    HostThread t;
    t.id = id;
    t.pid = int64_t(::getpid());
    t.tid = osThreadId();
    t.processName = processName();
    char buf[64] = {};
    if (::pthread_getname_np(::pthread_self(), buf, sizeof buf) == 0)
        t.name = buf;
    if (t.tid == t.pid && (t.name.empty() || t.name == t.processName))
        t.name = "main";
    return t;
}

}  // namespace

RecordSink::RecordSink(Writer& writer, size_t maxQueued) : m_writer(writer), m_maxQueued(maxQueued)
{
    m_nameIds.push_back(0);
    m_nodeIds.push_back(0);
    m_instanceIds.push_back(0);
    m_thread = std::thread([this] { run(); });
}

RecordSink::~RecordSink()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void RecordSink::push(Record&& r, bool droppable)
{
    bool wake = false;
    {
        std::lock_guard lock(m_mutex);
        if (droppable && (m_queue.size() >= m_maxQueued || m_failed.load())) {
            ++m_dropped;
            return;
        }
        m_queue.push_back(std::move(r));
        // Waking the writer per record would cost a futex call per op: wake it per batch, and
        // once when it sleeps with nothing to commit, so that its timed commit starts counting
        // (a long step with few records is still committed within a second).
        wake = m_queue.size() % kWakeBatch == 0;
        if (m_idleWait) {
            m_idleWait = false;
            wake = true;
        }
    }
    if (wake)
        m_wake.notify_one();
}

uint32_t RecordSink::name(std::string_view text)
{
    std::unique_lock lock(m_mutex);
    auto it = m_names.find(text);
    if (it != m_names.end())
        return it->second;
    uint32_t id = uint32_t(m_names.size() + 1);
    m_names.emplace(std::string(text), id);
    m_queue.push_back(NameDef{id, std::string(text)});
    return id;
}

int64_t RecordSink::scopeNode(int64_t parentNode, std::string_view name, std::string_view level)
{
    std::string key = std::to_string(parentNode);
    key += '\0';
    key += name;
    std::unique_lock lock(m_mutex);
    auto it = m_nodes.find(key);
    if (it != m_nodes.end())
        return it->second;
    int64_t id = int64_t(m_nodes.size() + 1);
    m_nodes.emplace(std::move(key), id);
    m_queue.push_back(NodeDef{id, parentNode, std::string(name), std::string(level)});
    return id;
}

int64_t RecordSink::beginScope(int64_t node, int64_t parentInstance, int64_t startNs)
{
    const int64_t tid = m_recordThreads ? osThreadId() : 0;
    std::unique_lock lock(m_mutex);
    int64_t thread = 0;
    if (m_recordThreads) {
        auto [it, added] = m_threadIds.try_emplace(tid, int64_t(m_threadIds.size()) + 1);
        if (added)
            m_queue.push_back(ThreadDef{describeCallingThread(it->second)});
        thread = it->second;
    }
    int64_t id = m_nextInstance++;
    m_queue.push_back(Begin{id, node, parentInstance, startNs, thread});
    return id;
}

void RecordSink::endScope(int64_t instance, int64_t endNs) { push(End{instance, endNs}, false); }

void RecordSink::activity(const ActivityRecord& record)
{
    ++m_activities;
    push(record, true);
}

void RecordSink::apiCall(const ApiRecord& record) { push(record, true); }

void RecordSink::launch(const LaunchRecord& record) { push(record, true); }

void RecordSink::device(const DeviceInfo& info) { push(info, false); }

std::string RecordSink::error() const
{
    std::lock_guard lock(const_cast<std::mutex&>(m_mutex));
    return m_error;
}

void RecordSink::kick()
{
    {
        std::lock_guard lock(m_mutex);
        m_kicked = true;
    }
    m_wake.notify_one();
}

void RecordSink::commit()
{
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(CommitMark{});
        m_kicked = true;
    }
    m_wake.notify_one();
}

void RecordSink::commitNow()
{
    m_writer.commit();
    m_uncommitted = false;
    m_lastCommit = std::chrono::steady_clock::now();
    ++m_commits;
}

void RecordSink::drain()
{
    kick();
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [&] { return (m_queue.empty() && !m_busy) || m_failed.load(); });
    if (m_failed.load())
        throw StorageError(m_error);
}

void RecordSink::close()
{
    drain();
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void RecordSink::run()
{
    std::vector<Record> batch;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_busy = false;
            m_idle.notify_all();
            auto ready = [&] { return m_stop || m_kicked || m_queue.size() >= kWakeBatch; };
            // Records wait for a batch or a kick; rows written but not committed (or records
            // queued) wait at most a second before the next commit.
            if (m_uncommitted || !m_queue.empty())
                m_wake.wait_until(lock, m_lastCommit + std::chrono::seconds(1), ready);
            else {
                m_idleWait = true;
                m_wake.wait(lock, [&] { return ready() || !m_idleWait; });
                m_idleWait = false;
            }
            m_kicked = false;
            bool due = std::chrono::steady_clock::now() - m_lastCommit >= std::chrono::seconds(1);
            if (m_queue.empty() && m_stop)
                return;
            if (m_queue.empty() && !(due && m_uncommitted && !m_failed.load()))
                continue;
            batch.swap(m_queue);
            m_busy = true;
        }
        if (!m_failed.load()) {
            try {
                for (Record& r : batch)
                    write(r);
                if (m_uncommitted && std::chrono::steady_clock::now() - m_lastCommit >= std::chrono::seconds(1))
                    commitNow();
            } catch (const std::exception& e) {
                std::lock_guard lock(m_mutex);
                m_error = e.what();
                m_failed = true;
                m_uncommitted = false;   // nothing more will be committed: no timed wake-ups
            }
        }
        batch.clear();
    }
}

void RecordSink::write(Record& r)
{
    struct Visitor {
        RecordSink& s;
        void operator()(NameDef& n)
        {
            if (s.m_nameIds.size() <= n.local)
                s.m_nameIds.resize(n.local + 1, 0);
            s.m_nameIds[n.local] = s.m_writer.intern(n.text);
        }
        void operator()(NodeDef& n)
        {
            if (s.m_nodeIds.size() <= size_t(n.local))
                s.m_nodeIds.resize(size_t(n.local) + 1, 0);
            s.m_nodeIds[size_t(n.local)] = s.m_writer.addScope(s.m_nodeIds.at(size_t(n.parent)), n.name, n.level);
        }
        void operator()(Begin& b)
        {
            if (s.m_instanceIds.size() <= size_t(b.local))
                s.m_instanceIds.resize(size_t(b.local) + 1, 0);
            s.m_instanceIds[size_t(b.local)] = s.m_writer.beginScopeInstance(
                s.m_nodeIds.at(size_t(b.node)), s.m_instanceIds.at(size_t(b.parent)), b.startNs, b.thread);
        }
        void operator()(ThreadDef& t) { s.m_writer.addHostThread(t.thread); }
        void operator()(End& e) { s.m_writer.endScopeInstance(s.m_instanceIds.at(size_t(e.local)), e.endNs); }
        void operator()(ActivityRecord& a)
        {
            uint64_t key = (uint64_t(uint32_t(a.device)) << 40) ^ (uint64_t(a.stream) << 1) ^
                           uint64_t(a.kind == ActivityKind::Kernel ? 0 : 1);
            auto it = s.m_tracks.find(key);
            if (it == s.m_tracks.end())
                it = s.m_tracks.emplace(key, s.m_writer.addTrack(a.device, a.stream,
                                                                 a.kind == ActivityKind::Kernel ? TrackKind::Kernel : TrackKind::Memory))
                         .first;
            Activity out;
            out.trackId = it->second;
            out.kind = a.kind;
            out.startNs = a.startNs;
            out.endNs = a.endNs;
            out.nameId = s.m_nameIds.at(a.name);
            out.scopeInstanceId = s.m_instanceIds.at(size_t(a.scopeInstance));
            out.correlationId = a.correlationId;
            out.config = a.config;
            out.bytes = a.bytes;
            s.m_writer.addActivity(out);
        }
        void operator()(ApiRecord& c)
        {
            s.m_writer.addApiCall(ApiCall{c.startNs, c.endNs, c.threadId, s.m_nameIds.at(c.name), c.correlationId});
        }
        void operator()(LaunchRecord& l)
        {
            LaunchFeatures f;
            f.scopeInstanceId = s.m_instanceIds.at(size_t(l.scopeInstance));
            f.nameId = s.m_nameIds.at(l.name);
            f.shapesId = l.shapes ? s.m_nameIds.at(l.shapes) : 0;
            f.kind = l.kind;
            f.flops = l.flops;
            f.bytesRead = l.bytesRead;
            f.bytesWritten = l.bytesWritten;
            f.m = l.m;
            f.n = l.n;
            f.k = l.k;
            f.batch = l.batch;
            f.correlationId = l.correlationId;
            s.m_writer.addLaunch(f);
        }
        void operator()(DeviceInfo& d) { s.m_writer.addDevice(d); }
        void operator()(CommitMark&) { s.commitNow(); }
    };
    if (!std::holds_alternative<CommitMark>(r))
        m_uncommitted = true;
    std::visit(Visitor{*this}, r);
}

}  // namespace wt::capture
