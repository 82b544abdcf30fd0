// wheretime: the command-line front end (no Qt Widgets). Subcommands live in cmd_*.cpp.
#include "app/cli/command.h"
#include "capture/cudaplugin.h"
#include "storage/database.h"
#include "storage/storageerror.h"
#include "wheretime_config.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>

namespace wt::cli {

std::vector<Command>& commands()
{
    static std::vector<Command> all;
    return all;
}

int fail(const std::string& message)
{
    std::cerr << "wheretime: error: " << message << "\n";
    return 1;
}

}  // namespace wt::cli

namespace {

void printHelp(std::ostream& out)
{
    using namespace wt::cli;
    out << "wheretime " WHERETIME_VERSION " - where the time of a language-model workload goes on a GPU\n\n"
           "usage: wheretime <command> [options]\n\ncommands:\n";
    for (const Command& c : sortedCommands()) {
        std::string pad(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ');
        out << "  " << c.name << pad << c.summary << "\n";
    }
    out << "  help        the help of a command (wheretime help COMMAND)\n"
           "\nRun 'wheretime help <command>' or 'wheretime <command> --help' for a command's options.\n"
           "FILE is a wheretime database; FILE:RUN picks a run by id or name (default: the newest).\n";
}

}  // namespace

int main(int argc, char** argv)
{
    using namespace wt::cli;
    // Past a file-size limit, writes must fail with EFBIG (reported like a full disk) instead
    // of the process being killed.
    std::signal(SIGXFSZ, SIG_IGN);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        printHelp(std::cerr);
        return 2;
    }
    auto& cmds = commands();
    auto find = [&](const std::string& name) {
        return std::find_if(cmds.begin(), cmds.end(), [&](const Command& c) { return c.name == name; });
    };
    if (args[0] == "help" && args.size() == 2 && args[1] == "--man") {
        std::cout << manPage();
        return 0;
    }
    if (args[0] == "help" && args.size() >= 2) {
        auto c = find(args[1]);
        if (c == cmds.end()) {
            std::cerr << "wheretime help: unknown command '" << args[1] << "'\n";
            return 2;
        }
        std::cout << c->usage;
        return 0;
    }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        printHelp(std::cout);
        return 0;
    }
    if (args[0] == "--version" || args[0] == "-V") {
        // The plugin is looked for, not loaded: --version maps no CUDA library.
        std::string plugin = wt::capture::findCudaPlugin();
        std::cout << "wheretime " WHERETIME_VERSION "\n"
                  << "file schema: " << wt::Database::kSchemaVersion << "\n"
                  << "cuda plugin: " << (plugin.empty() ? std::string("not installed (CPU capture only)") : plugin + " (ABI " + std::to_string(wt::capture::kCudaPluginAbi) + " expected; loaded by capture)") << "\n";
        return 0;
    }
    auto it = find(args[0]);
    if (it == cmds.end()) {
        std::cerr << "wheretime: unknown command '" << args[0] << "'\n\n";
        printHelp(std::cerr);
        return 2;
    }
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
        std::find(rest.begin(), rest.end(), "-h") != rest.end()) {
        std::cout << it->usage;
        return 0;
    }
    Args parsed(rest);
    parsed.setOptions(&it->options);
    try {
        return it->run(parsed);
    } catch (const UsageError& e) {
        std::cerr << "wheretime " << it->name << ": " << e.what() << "\n\n" << it->usage;
        return 2;
    } catch (const wt::StorageError& e) {
        return fail(e.what());
    } catch (const std::bad_alloc&) {
        return fail("out of memory");
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}
