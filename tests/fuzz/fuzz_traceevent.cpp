// libFuzzer target: Kineto / Chrome trace JSON bytes through the streaming parser and, when
// they parse, through writeTrace() into an in-memory database (rolled back every time).
// Also checks the exact-time parser against its own formatter, and the sliced parse (tiny
// slices, so small inputs take that path too) against the one-pass parse: same trace or
// same error, and the stream (a window at a time, read in odd pieces) against it too: where
// the stream does not refuse, the same trace, and only for texts that parse.
#include "storage/database.h"
#include "interop/exacttime.h"
#include "interop/importerror.h"
#include "interop/traceeventimporter.h"
#include "storage/storageerror.h"
#include "storage/writer.h"
#include "fuzzwrite.h"

#include <cstdint>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The input handed out in pieces of at most `piece` bytes.
class PieceStream final : public wt::interop::TextStream {
public:
    PieceStream(const char* data, size_t size, size_t piece) : m_data(data), m_size(size), m_piece(piece) {}
    size_t read(char* dst, size_t max) override
    {
        size_t n = std::min({max, m_piece, m_size - m_pos});
        std::memcpy(dst, m_data + m_pos, n);
        m_pos += n;
        return n;
    }

private:
    const char* m_data;
    size_t m_size, m_piece, m_pos = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace wt;
    static Database db(":memory:", OpenMode::ReadWrite);

    // Exact time: anything that parses and fits must format back to the same value.
    std::string_view text(reinterpret_cast<const char*>(data), std::min<size_t>(size, 40));
    if (auto ns = interop::microsToNs(text)) {
        if (*ns >= 0 && *ns < INT64_MAX / 2 && interop::microsToNs(interop::nsToMicrosText(*ns)) != ns)
            std::abort();
    }

    std::vector<char> buf(size + 64, 0);   // simdjson padding
    std::memcpy(buf.data(), data, size);
    // Differential: slices of 64 bytes against one pass.
    {
        std::string slicedError, wholeError;
        interop::ImportedTrace sliced, whole;
        try {
            sliced = interop::TraceEventImporter::parse("fuzz.json", buf.data(), size, buf.size(), 64);
        } catch (const interop::ImportError& e) {
            slicedError = e.what();
        }
        try {
            whole = interop::TraceEventImporter::parse("fuzz.json", buf.data(), size, buf.size(), 0);
        } catch (const interop::ImportError& e) {
            wholeError = e.what();
        }
        if (slicedError != wholeError)
            std::abort();
        if (wholeError.empty()) {
            if (sliced.ranges.size() != whole.ranges.size() || sliced.activities.size() != whole.activities.size() ||
                sliced.calls.size() != whole.calls.size() || sliced.clockBaseNs != whole.clockBaseNs)
                std::abort();
            for (size_t i = 0; i < whole.activities.size(); ++i) {
                const auto& a = sliced.activities[i];
                const auto& b = whole.activities[i];
                if (a.startNs != b.startNs || a.endNs != b.endNs || a.stream != b.stream || a.correlationId != b.correlationId ||
                    sliced.strings.at(a.name) != whole.strings.at(b.name))
                    std::abort();
            }
            for (size_t i = 0; i < whole.ranges.size(); ++i)
                if (sliced.ranges[i].startNs != whole.ranges[i].startNs || sliced.ranges[i].endNs != whole.ranges[i].endNs)
                    std::abort();
        }
        PieceStream in(reinterpret_cast<const char*>(data), size, size ? 1 + data[size - 1] % 29 : 1);
        interop::ImportedTrace streamed;
        try {
            if (interop::TraceEventImporter::parseStream("fuzz.json", in, streamed, 64)) {
                if (!wholeError.empty() || streamed.ranges.size() != whole.ranges.size() ||
                    streamed.activities.size() != whole.activities.size() || streamed.calls.size() != whole.calls.size() ||
                    streamed.clockBaseNs != whole.clockBaseNs)
                    std::abort();
                for (size_t i = 0; i < whole.activities.size(); ++i)
                    if (streamed.activities[i].startNs != whole.activities[i].startNs ||
                        streamed.strings.at(streamed.activities[i].name) != whole.strings.at(whole.activities[i].name))
                        std::abort();
            }
        } catch (const interop::ImportError& e) {
            if (e.what() != wholeError)
                std::abort();   // only finish() throws here: the same error as the one pass
        }
    }
    try {
        interop::ImportedTrace t = interop::TraceEventImporter::parse("fuzz.json", buf.data(), size, buf.size());
        fuzz::writeRolledBack(db, t, "fuzz.json");
    } catch (const interop::ImportError& e) {
        if (std::strchr(e.what(), '\n'))
            std::abort();   // errors are one line
    }
    return 0;
}
