#include "importer.h"

#include "steprecognition.h"

#include "importerror.h"
#include "multirank.h"
#include "nsysimporter.h"
#include "traceeventimporter.h"

#include "storage/database.h"
#include "storage/writer.h"

#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <thread>

#include <poll.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wt::interop {

namespace {

constexpr size_t kPadding = 64;   // simdjson::SIMDJSON_PADDING
const char* const kUnknownFormat =
    "unknown format (expected an Nsight Systems SQLite export or Kineto/Chrome trace JSON, plain or .gz)";

// How errors name an input: "-" is standard input.
std::string displayName(const std::string& path)
{
    return path == "-" ? std::string("<stdin>") : path;
}

std::string baseName(const std::string& path)
{
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// One input, opened once: a regular file is mapped; anything else (a FIFO, a pipe or socket as
// standard input, a character device) is read in one pass into a buffer, and the format is told
// from the bytes already read, so nothing is ever opened or read twice.
class Input {
public:
    explicit Input(const std::string& path) : m_path(displayName(path))
    {
        if (path == "-") {
            m_file.fd = STDIN_FILENO;
            m_file.owned = false;
            if (::isatty(m_file.fd))
                fail("standard input is a terminal (pipe a trace into it, or give a file)");
        } else {
            // O_NONBLOCK: opening a FIFO that has no writer must not block.
            m_file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
            if (m_file.fd < 0)
                fail(std::string("cannot open: ") + std::strerror(errno));
        }
        struct stat st {};
        if (::fstat(m_file.fd, &st) != 0)
            fail(std::string("cannot read: ") + std::strerror(errno));
        if (S_ISDIR(st.st_mode))
            fail("is a directory, not a trace file");
        // A named FIFO may wait for its writer; standard input's pipe has one (or had: EOF).
        m_fifo = S_ISFIFO(st.st_mode) && m_file.fd != STDIN_FILENO;
        m_regular = S_ISREG(st.st_mode);
        if (m_regular) {
            m_size = size_t(st.st_size);
            if (m_size == 0)
                fail("empty file");
            void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, m_file.fd, 0);
            if (p != MAP_FAILED) {
                m_mapping.data = static_cast<const char*>(p);
                m_mapping.size = m_size;
                ::madvise(p, m_size, MADV_SEQUENTIAL);
            } else {
                readRegular();
            }
        } else {
            readStream();
        }
    }
    Input(const Input&) = delete;
    Input& operator=(const Input&) = delete;

    bool regular() const { return m_regular; }
    const std::string& name() const { return m_path; }
    bool mapped() const { return m_mapping.data != nullptr; }
    const char* data() const { return m_mapping.data ? m_mapping.data : m_buf.data(); }
    size_t size() const { return m_mapping.data ? m_size : m_buf.size(); }
    TraceFormat format() const { return detectFormat(data(), size()); }
    // The buffer (not the mapping): its capacity holds the simdjson padding.
    std::string& buffer() { return m_buf; }
    [[noreturn]] void fail(const std::string& what) const { throw ImportError(m_path, what); }

private:
    // A regular file that cannot be mapped (some file systems): read it whole.
    void readRegular()
    {
        m_buf.reserve(m_size + kPadding);
        m_buf.resize(m_size);
        size_t done = 0;
        while (done < m_size) {
            ssize_t n = ::pread(m_file.fd, m_buf.data() + done, m_size - done, off_t(done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                fail(n < 0 ? std::string("read error: ") + std::strerror(errno) : std::string("the file shrank while being read"));
            done += size_t(n);
        }
    }

    // Reads to the end. A FIFO whose writer has not come yet gets kWriterWaitMs to connect;
    // the first bytes are checked as soon as they arrive, so an endless stream of something
    // that is not a trace (/dev/zero) fails at once.
    void readStream()
    {
        constexpr int kWriterWaitMs = 3000;
        const char* what = m_file.fd == STDIN_FILENO ? "standard input" : m_fifo ? "FIFO" : "input";
        size_t used = 0;
        bool waited = false, checked = false;
        m_buf.resize(size_t(1) << 16);
        for (;;) {
            if (m_buf.size() - used < (size_t(1) << 16))
                m_buf.resize(m_buf.size() * 2);
            ssize_t n = ::read(m_file.fd, m_buf.data() + used, m_buf.size() - used);
            if (n > 0) {
                used += size_t(n);
                if (!checked && used >= 16) {
                    checked = true;
                    checkStreamFormat(used);
                }
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                // A writer is there but has written nothing yet: wait for it, like cat.
                struct pollfd p{m_file.fd, POLLIN, 0};
                ::poll(&p, 1, -1);
                continue;
            }
            if (n < 0)
                fail(std::string("read error: ") + std::strerror(errno));
            // End of input. On a FIFO that read nothing yet, no writer was ever there: give one
            // a moment to connect, once.
            if (used == 0 && m_fifo && !waited) {
                waited = true;
                struct pollfd p{m_file.fd, POLLIN, 0};
                int r = ::poll(&p, 1, kWriterWaitMs);
                if (r == 0)
                    fail("is a FIFO with no writer (nothing connected to it within " + std::to_string(kWriterWaitMs / 1000) + " s)");
                continue;
            }
            break;
        }
        m_buf.resize(used);
        if (used == 0)
            fail(std::string("empty ") + what + " (nothing was read)");
        if (!checked)
            checkStreamFormat(used);
        if (m_buf.capacity() < used + kPadding)
            m_buf.reserve(used + kPadding);
    }

    void checkStreamFormat(size_t used) const
    {
        switch (detectFormat(m_buf.data(), used)) {
        case TraceFormat::NsysSqlite:
            fail("an Nsight Systems SQLite export cannot be read from a pipe or standard input; give its file");
        case TraceFormat::Unknown:
            fail(kUnknownFormat);
        default:
            break;
        }
    }

    // Owners of the descriptor and the mapping: released also when the constructor throws.
    struct File {
        int fd = -1;
        bool owned = true;
        ~File()
        {
            if (owned && fd >= 0)
                ::close(fd);
        }
    };
    struct Mapping {
        const char* data = nullptr;
        size_t size = 0;
        ~Mapping()
        {
            if (data)
                ::munmap(const_cast<char*>(data), size);
        }
    };

    std::string m_path;
    File m_file;
    Mapping m_mapping;
    bool m_fifo = false;
    bool m_regular = false;
    size_t m_size = 0;
    std::string m_buf;
};

// gzip (one member or several, as gzip -c a b writes) inflated from memory into one buffer
// with simdjson's padding after the text.
std::string inflateGzip(const Input& in, const std::string& path)
{
    const unsigned char* src = reinterpret_cast<const unsigned char*>(in.data());
    const size_t srcSize = in.size();
    // The trailer holds the uncompressed size mod 2^32: a good first guess for the buffer. A
    // damaged trailer must not make us allocate gigabytes: deflate cannot expand data more
    // than ~1032x.
    size_t guess = size_t(1) << 20;
    if (srcSize >= 4) {
        const unsigned char* t = src + srcSize - 4;
        guess = std::max<size_t>(guess, size_t(t[0]) | size_t(t[1]) << 8 | size_t(t[2]) << 16 | size_t(t[3]) << 24);
        guess = std::min<size_t>(guess, std::max<size_t>(size_t(1) << 20, srcSize * 1032));
    }
    std::string buf;
    buf.resize(guess + kPadding);
    size_t used = 0, pos = 0;
    z_stream z{};
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        throw ImportError(path, "cannot start the gzip decoder");
    struct End {
        z_stream& z;
        ~End() { inflateEnd(&z); }
    } end{z};
    for (;;) {
        if (buf.size() - kPadding - used == 0)
            // Full: grow by half (the usual exact guess never gets here).
            buf.resize(buf.size() + buf.size() / 2);
        size_t inChunk = std::min<size_t>(srcSize - pos, 1u << 30);
        size_t outChunk = std::min<size_t>(buf.size() - kPadding - used, 1u << 30);
        z.next_in = const_cast<unsigned char*>(src + pos);
        z.avail_in = unsigned(inChunk);
        z.next_out = reinterpret_cast<unsigned char*>(buf.data() + used);
        z.avail_out = unsigned(outChunk);
        int rc = inflate(&z, Z_NO_FLUSH);
        pos += inChunk - z.avail_in;
        used += outChunk - z.avail_out;
        if (rc == Z_STREAM_END) {
            // Another member may follow; anything else after the stream is ignored (as gzip does).
            if (srcSize - pos >= 2 && src[pos] == 0x1f && src[pos + 1] == 0x8b) {
                inflateReset(&z);
                continue;
            }
            break;
        }
        if (rc == Z_BUF_ERROR && pos >= srcSize)
            throw ImportError(path, "corrupt gzip stream (unexpected end of file)");
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            throw ImportError(path, std::string("corrupt gzip stream (") + (z.msg ? z.msg : "inflate error") + ")");
    }
    buf.resize(used);
    if (buf.capacity() < used + kPadding)
        buf.reserve(used + kPadding);
    return buf;
}

// gzip inflated on demand, a slice at a time (TraceEventImporter::parseStream()): memory holds
// the compressed input (mapped) and the slices in flight, not the inflated text.
class GzipStream final : public TextStream {
public:
    GzipStream(const Input& in, std::string path)
        : m_src(reinterpret_cast<const unsigned char*>(in.data())), m_size(in.size()), m_path(std::move(path))
    {
        if (inflateInit2(&m_z, 15 + 16) != Z_OK)
            throw ImportError(m_path, "cannot start the gzip decoder");
    }
    ~GzipStream() override { inflateEnd(&m_z); }
    GzipStream(const GzipStream&) = delete;
    GzipStream& operator=(const GzipStream&) = delete;

    size_t read(char* dst, size_t max) override
    {
        size_t got = 0;
        while (got < max && !m_done) {
            size_t inChunk = std::min<size_t>(m_size - m_pos, 1u << 30);
            size_t outChunk = std::min<size_t>(max - got, 1u << 30);
            m_z.next_in = const_cast<unsigned char*>(m_src + m_pos);
            m_z.avail_in = unsigned(inChunk);
            m_z.next_out = reinterpret_cast<unsigned char*>(dst + got);
            m_z.avail_out = unsigned(outChunk);
            int rc = inflate(&m_z, Z_NO_FLUSH);
            m_pos += inChunk - m_z.avail_in;
            got += outChunk - m_z.avail_out;
            if (rc == Z_STREAM_END) {
                // Another member may follow; anything else after the stream is ignored (as gzip does).
                if (m_size - m_pos >= 2 && m_src[m_pos] == 0x1f && m_src[m_pos + 1] == 0x8b)
                    inflateReset(&m_z);
                else
                    m_done = true;
                continue;
            }
            if (rc == Z_BUF_ERROR && m_pos >= m_size)
                throw ImportError(m_path, "corrupt gzip stream (unexpected end of file)");
            if (rc != Z_OK && rc != Z_BUF_ERROR)
                throw ImportError(m_path, std::string("corrupt gzip stream (") + (m_z.msg ? m_z.msg : "inflate error") + ")");
        }
        return got;
    }
    size_t sourceRead() const override { return m_pos; }
    size_t sourceSize() const override { return m_size; }

private:
    const unsigned char* m_src;
    size_t m_size;
    size_t m_pos = 0;
    std::string m_path;
    z_stream m_z{};
    bool m_done = false;
};

}  // namespace

TraceFormat detectFormat(const char* data, size_t n)
{
    const unsigned char* head = reinterpret_cast<const unsigned char*>(data);
    n = std::min<size_t>(n, 16);
    if (n >= 16 && std::memcmp(head, "SQLite format 3", 16) == 0)
        return TraceFormat::NsysSqlite;
    if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
        return TraceFormat::GzipJson;
    for (size_t i = 0; i < n; ++i) {
        if (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')
            continue;
        if (head[i] == '{' || head[i] == '[')
            return TraceFormat::Json;
        break;
    }
    return TraceFormat::Unknown;
}

TraceFormat detectFormat(const std::string& path)
{
    Input in(path);
    return in.format();
}

ImportedTrace parseTraceFile(const std::string& path, size_t sliceBytes, int threads)
{
    if (sliceBytes == 0)
        sliceBytes = TraceEventImporter::kSliceBytes;
    Input in(path);
    switch (in.format()) {
    case TraceFormat::NsysSqlite:
        // SQLite opens the file by its name: only a named regular file can be read.
        if (path == "-")
            in.fail("an Nsight Systems SQLite export cannot be read from a pipe or standard input; give its file");
        return NsysImporter::parse(path);
    case TraceFormat::Json:
        // Large plain files are parsed in slices straight from the mapping (each slice is copied
        // with its own padding); the one-pass fallback copies the text itself when needed.
        if (in.mapped())
            return TraceEventImporter::parse(in.name(), in.data(), in.size(), in.size(), sliceBytes, true, threads);
        {
            std::string& buf = in.buffer();
            // Padding bytes past the end must be readable; the capacity guarantees they are ours.
            buf.reserve(buf.size() + kPadding);
            return TraceEventImporter::parse(in.name(), buf.data(), buf.size(), buf.capacity(), sliceBytes, true, threads);
        }
    case TraceFormat::GzipJson: {
        {
            // Inflated slice by slice while the slices are parsed: never the whole text in memory.
            ImportedTrace streamed;
            GzipStream stream(in, in.name());
            if (TraceEventImporter::parseStream(in.name(), stream, streamed, sliceBytes, threads))
                return streamed;
        }
        // Did not split cleanly, or an error: inflate it whole and parse it again (the exact error).
        std::string buf = inflateGzip(in, in.name());
        size_t size = buf.size();
        buf.reserve(size + kPadding);
        // The text is dropped page by page as its slices are handled.
        return TraceEventImporter::parse(in.name(), buf.data(), size, buf.capacity(), sliceBytes, true, threads);
    }
    case TraceFormat::Unknown:
        break;
    }
    in.fail(kUnknownFormat);
}

namespace {

// Writes one trace as one run in one transaction: on any error nothing of it remains.
WriteResult writeInTransaction(Database& db, ImportedTrace& trace, const RunInfo& info)
{
    WriteResult written;
    db.begin();
    try {
        Writer w(db);
        try {
            written = writeTrace(w, trace, info);
        } catch (...) {
            w.discardRun();
            throw;
        }
    } catch (...) {
        db.rollback();
        throw;
    }
    db.commit();
    return written;
}

}  // namespace

ImportResult importTrace(Database& db, const std::string& path, const ImportOptions& options)
{
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    ImportedTrace trace = parseTraceFile(path, options.sliceBytes, options.parseThreads);
    auto t1 = Clock::now();

    RunInfo info;
    info.name = !options.name.empty() ? options.name : path == "-" ? std::string("stdin") : baseName(path);
    info.sourceFile = displayName(path);
    ImportResult result;
    result.steps = markSteps(trace, options.stepPattern, info.sourceFile).steps;
    for (const auto& kv : options.metadata)
        trace.metadata.push_back(kv);
    result.format = trace.format;
    result.counts = trace.counts;
    result.slices = trace.slices;
    result.streamed = trace.streamed;
    result.written = writeInTransaction(db, trace, info);
    auto t2 = Clock::now();
    result.parseSeconds = std::chrono::duration<double>(t1 - t0).count();
    result.writeSeconds = std::chrono::duration<double>(t2 - t1).count();
    return result;
}

ImportResult importRanks(Database& db, const std::vector<std::string>& paths, const ImportOptions& options)
{
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    for (const auto& p : paths)
        if (p == "-")
            throw ImportError("<stdin>", "standard input cannot be one of the ranks of a run; give the files");
    checkDistinctFiles(paths);
    // Parse (and nest + attribute, on each file's own thread ids and correlation ids) on a few
    // threads; large files also parse in slices on two threads of their own.
    std::vector<RankedTrace> traces(paths.size());
    std::vector<std::exception_ptr> errors(paths.size());
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::atomic<int64_t> steps{0};
    auto work = [&] {
        for (size_t i; !failed && (i = next.fetch_add(1)) < paths.size();) {
            try {
                traces[i].file = displayName(paths[i]);
                traces[i].trace = parseTraceFile(paths[i], options.sliceBytes, options.parseThreads);
                // Steps before the ranges are nested: a step adopts the backward pass's ranges.
                steps += markSteps(traces[i].trace, options.stepPattern, traces[i].file).steps;
                resolveRanges(traces[i].trace);
            } catch (...) {
                errors[i] = std::current_exception();
                failed = true;
            }
        }
    };
    const size_t workers = std::min<size_t>(paths.size(), std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4));
    std::vector<std::thread> threads;
    for (size_t k = 1; k < workers; ++k)
        threads.emplace_back(work);
    work();
    for (auto& t : threads)
        t.join();
    for (auto& e : errors)
        if (e)
            std::rethrow_exception(e);   // the first failing file in the order given
    MergeResult merged = mergeRanks(std::move(traces));
    auto t1 = Clock::now();

    RunInfo info;
    info.name = !options.name.empty() ? options.name
                                      : baseName(paths.front()) + (paths.size() > 1 ? " (+" + std::to_string(paths.size() - 1) + (paths.size() == 2 ? " rank)" : " ranks)") : std::string());
    std::string sources;
    for (const auto& p : paths)
        sources += (sources.empty() ? "" : ", ") + displayName(p);
    info.sourceFile = sources;
    ImportResult result;
    result.format = merged.trace.format;
    result.counts = merged.trace.counts;
    result.ranks = merged.ranks;
    result.ranksFromFile = merged.ranksFromFile;
    result.steps = steps;
    for (const auto& kv : options.metadata)
        merged.trace.metadata.push_back(kv);
    result.written = writeInTransaction(db, merged.trace, info);
    auto t2 = Clock::now();
    result.parseSeconds = std::chrono::duration<double>(t1 - t0).count();
    result.writeSeconds = std::chrono::duration<double>(t2 - t1).count();
    return result;
}

}  // namespace wt::interop
