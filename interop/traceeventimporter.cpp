#include "traceeventimporter.h"

#include "traceeventparser.h"
#include "traceeventtokenizer.h"

namespace wt::interop {

ImportedTrace TraceEventImporter::parse(const std::string& file, const char* json, size_t size, size_t capacity, size_t sliceBytes,
                                        bool releaseText, int threads)
{
    if (sliceBytes > 0 && size >= 2 * sliceBytes) {
        // The parser's names and kept events copy their strings when the text goes away.
        TraceEventTokenizer tokenizer(file);
        TraceEventParser parser(file, releaseText);
        tokenizer.setThreads(threads);
        if (tokenizer.tokenizeSliced(json, size, sliceBytes, releaseText, parser)) {
            ImportedTrace t = parser.finish(tokenizer.header());
            t.slices = tokenizer.slices();
            return t;
        }
    }
    // One pass (also the fallback: fresh phases, and the exact error of a text that did not split).
    TraceEventTokenizer tokenizer(file);
    TraceEventParser parser(file, false);
    tokenizer.tokenize(json, size, capacity, parser);
    return parser.finish(tokenizer.header());
}

bool TraceEventImporter::parseStream(const std::string& file, TextStream& in, ImportedTrace& out, size_t sliceBytes, int threads)
{
    TraceEventTokenizer tokenizer(file);
    tokenizer.setThreads(threads);
    TraceEventParser parser(file, true);   // the slices' texts go away as they are handled
    if (!tokenizer.tokenizeStream(in, sliceBytes, parser))
        return false;
    out = parser.finish(tokenizer.header());
    out.slices = tokenizer.slices();
    out.streamed = true;
    return true;
}

}  // namespace wt::interop
