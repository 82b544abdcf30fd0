// wheretime import INPUT... -o FILE: other tools' traces (Nsight Systems SQLite exports,
// PyTorch profiler / Kineto JSON, Chrome trace JSON; .gz or plain) as runs of a wheretime file.
#include "app/cli/command.h"
#include "storage/database.h"
#include "interop/importer.h"
#include "interop/importerror.h"
#include "storage/storageerror.h"

#include <cstdio>
#include <iostream>

namespace wt::cli {
namespace {

const char* kUsage =
    "usage: wheretime import INPUT... -o FILE [--name NAME] [--timing]\n\n"
    "Imports each INPUT as one run of FILE (created when missing). The format is found from the\n"
    "content: Nsight Systems SQLite export (nsys export --type sqlite), PyTorch profiler (Kineto)\n"
    "trace JSON, or Chrome trace JSON (X events, B/E pairs), plain or gzip-compressed.\n"
    "NVTX ranges, CPU ops and annotations become scopes; each kernel is attributed to the\n"
    "innermost range open on its launching thread when it was launched.\n"
    "An input that fails leaves nothing behind; the others are still imported (exit status 1).\n"
    "  -o FILE     the wheretime file to add runs to\n"
    "  --name N    run name (default: the input's file name; with several inputs, N #2, N #3...)\n"
    "  --timing    also print parse and write times\n";

int runImport(Args& args)
{
    args.parse({"-o", "--output", "--name"}, {"--timing"});
    auto out = args.value("-o");
    if (!out)
        out = args.value("--output");
    if (!out)
        throw UsageError("missing -o FILE");
    if (args.positionals().empty())
        throw UsageError("expected at least one INPUT");
    Database db(*out, OpenMode::ReadWrite);
    int failures = 0;
    const auto& inputs = args.positionals();
    for (size_t i = 0; i < inputs.size(); ++i) {
        interop::ImportOptions options;
        if (auto name = args.value("--name"))
            options.name = i == 0 ? *name : *name + " #" + std::to_string(i + 1);
        try {
            interop::ImportResult r = interop::importTrace(db, inputs[i], options);
            std::printf("run %lld: %lld kernels, %d device%s (%s, %s)\n", static_cast<long long>(r.written.runId),
                        static_cast<long long>(r.written.kernels), r.written.devices, r.written.devices == 1 ? "" : "s",
                        r.format.c_str(), inputs[i].c_str());
            if (args.flag("--timing"))
                std::printf("  parse %.3f s, write %.3f s\n", r.parseSeconds, r.writeSeconds);
        } catch (const interop::ImportError& e) {
            fail(e.what());
            ++failures;
        } catch (const StorageError& e) {
            fail(inputs[i] + ": " + e.what());
            ++failures;
        }
    }
    return failures ? 1 : 0;
}

const RegisterCommand reg{{"import", "import Nsight Systems, Kineto or Chrome traces as runs", kUsage, runImport}};

}  // namespace
}  // namespace wt::cli
