#include "importer.h"

#include "importerror.h"
#include "nsysimporter.h"
#include "traceeventimporter.h"

#include "storage/database.h"
#include "storage/writer.h"

#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wt::interop {

namespace {

constexpr size_t kPadding = 64;   // simdjson::SIMDJSON_PADDING

std::string baseName(const std::string& path)
{
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

struct FileCloser {
    void operator()(FILE* f) const { std::fclose(f); }
};

// The whole (uncompressed) file in a buffer with simdjson's padding after it; one copy only.
std::string readPlain(const std::string& path)
{
    std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
    if (!f)
        throw ImportError(path, std::string("cannot open: ") + std::strerror(errno));
    std::fseek(f.get(), 0, SEEK_END);
    long size = std::ftell(f.get());
    std::fseek(f.get(), 0, SEEK_SET);
    if (size < 0)
        throw ImportError(path, "cannot read the file size");
    std::string buf;
    buf.reserve(size_t(size) + kPadding);
    buf.resize(size_t(size));
    if (size > 0 && std::fread(buf.data(), 1, size_t(size), f.get()) != size_t(size))
        throw ImportError(path, "read error");
    return buf;
}

std::string readGzip(const std::string& path)
{
    // The gzip trailer holds the uncompressed size mod 2^32: a good first guess for the buffer.
    size_t guess = 1 << 20;
    {
        std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
        if (!f)
            throw ImportError(path, std::string("cannot open: ") + std::strerror(errno));
        if (std::fseek(f.get(), -4, SEEK_END) == 0) {
            long compressed = std::ftell(f.get()) + 4;
            unsigned char t[4];
            if (std::fread(t, 1, 4, f.get()) == 4)
                guess = std::max<size_t>(guess, size_t(t[0]) | size_t(t[1]) << 8 | size_t(t[2]) << 16 | size_t(t[3]) << 24);
            // A damaged trailer must not make us allocate gigabytes: deflate cannot expand
            // data more than ~1032x.
            guess = std::min<size_t>(guess, std::max<size_t>(1 << 20, size_t(std::max(compressed, 0L)) * 1032));
        }
    }
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz)
        throw ImportError(path, "cannot open gzip stream");
    gzbuffer(gz, 1 << 17);
    // Sized once for the whole text plus padding; it grows (by half) only when the trailer
    // guessed short. Growing in small steps past the reservation made std::string double its
    // capacity and copy: a second copy of the text at the peak.
    std::string buf;
    buf.resize(guess + kPadding);
    size_t used = 0;
    auto failed = [&](int n) {
        if (n >= 0)
            return;
        int err = 0;
        std::string why = gzerror(gz, &err);
        gzclose(gz);
        throw ImportError(path, "corrupt gzip stream (" + why + ")");
    };
    for (;;) {
        size_t room = buf.size() - kPadding - used;
        if (room == 0) {
            // Full: grow only if there is more (the usual exact guess ends here).
            char probe = 0;
            int n = gzread(gz, &probe, 1);
            failed(n);
            if (n == 0)
                break;
            buf.resize(buf.size() + buf.size() / 2);
            buf[used++] = probe;
            continue;
        }
        int n = gzread(gz, buf.data() + used, unsigned(std::min<size_t>(room, 1u << 30)));
        failed(n);
        if (n == 0)
            break;
        used += size_t(n);
    }
    int err = 0;
    const char* why = gzerror(gz, &err);
    if (err != Z_OK && err != Z_STREAM_END) {
        std::string w = why;
        gzclose(gz);
        throw ImportError(path, "corrupt gzip stream (" + w + ")");
    }
    gzclose(gz);
    buf.resize(used);
    if (buf.capacity() < used + kPadding)
        buf.reserve(used + kPadding);
    return buf;
}

// A plain file mapped read-only: no copy, and pages already parsed can be handed back.
class MappedFile {
public:
    explicit MappedFile(const std::string& path)
    {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return;
        struct stat st {};
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
            void* p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
            if (p != MAP_FAILED) {
                m_data = static_cast<const char*>(p);
                m_size = size_t(st.st_size);
                ::madvise(p, m_size, MADV_SEQUENTIAL);
            }
        }
        ::close(fd);
    }
    ~MappedFile()
    {
        if (m_data)
            ::munmap(const_cast<char*>(m_data), m_size);
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    const char* data() const { return m_data; }
    size_t size() const { return m_size; }

private:
    const char* m_data = nullptr;
    size_t m_size = 0;
};

}  // namespace

TraceFormat detectFormat(const std::string& path)
{
    std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
    if (!f)
        throw ImportError(path, std::string("cannot open: ") + std::strerror(errno));
    unsigned char head[16] = {};
    size_t n = std::fread(head, 1, sizeof head, f.get());
    if (n == 0)
        throw ImportError(path, "empty file");
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

ImportedTrace parseTraceFile(const std::string& path)
{
    switch (detectFormat(path)) {
    case TraceFormat::NsysSqlite:
        return NsysImporter::parse(path);
    case TraceFormat::Json: {
        // Large plain files are parsed in slices straight from the mapping (each slice is copied
        // with its own padding); the one-pass fallback copies the text itself when needed.
        MappedFile map(path);
        if (map.data())
            return TraceEventImporter::parse(path, map.data(), map.size(), map.size(), TraceEventImporter::kSliceBytes, true);
        [[fallthrough]];
    }
    case TraceFormat::GzipJson: {
        std::string buf = detectFormat(path) == TraceFormat::GzipJson ? readGzip(path) : readPlain(path);
        size_t size = buf.size();
        // Padding bytes past the end must be readable; the capacity guarantees they are ours.
        buf.reserve(size + kPadding);
        // The text is dropped page by page as its slices are handled.
        return TraceEventImporter::parse(path, buf.data(), size, buf.capacity(), TraceEventImporter::kSliceBytes, true);
    }
    case TraceFormat::Unknown:
        break;
    }
    throw ImportError(path, "unknown format (expected an Nsight Systems SQLite export or Kineto/Chrome trace JSON, plain or .gz)");
}

ImportResult importTrace(Database& db, const std::string& path, const ImportOptions& options)
{
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    ImportedTrace trace = parseTraceFile(path);
    auto t1 = Clock::now();

    RunInfo info;
    info.name = options.name.empty() ? baseName(path) : options.name;
    info.sourceFile = path;
    ImportResult result;
    result.format = trace.format;
    result.counts = trace.counts;
    db.begin();
    try {
        Writer w(db);
        try {
            result.written = writeTrace(w, trace, info);
        } catch (...) {
            w.discardRun();
            throw;
        }
    } catch (...) {
        db.rollback();
        throw;
    }
    db.commit();
    auto t2 = Clock::now();
    result.parseSeconds = std::chrono::duration<double>(t1 - t0).count();
    result.writeSeconds = std::chrono::duration<double>(t2 - t1).count();
    return result;
}

}  // namespace wt::interop
