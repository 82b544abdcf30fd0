// Subcommands of the `wheretime` CLI register themselves here; main() dispatches by name.
// A command is one table entry (in its cmd_*.cpp):
//   const RegisterCommand reg{{"name", "summary", kUsage, runName,
//                              {{"--json", "", "print JSON"}, {"-o", "FILE", "output file"}}}};
// and its run function calls args.parse() (no lists): the options table is then what parsing,
// `wheretime help NAME`, the bash/zsh completions and the man page all read. A command
// registered without a table (parsing with explicit lists) still gets help, completion and a
// man section: its options are then read from the --options in its usage text.
// Exit codes: 0 success, 1 failure (bad file, I/O), 2 usage error.
#pragma once

#include "app/cli/args.h"

#include <functional>
#include <string>
#include <vector>

namespace wt::cli {

struct Command {
    Command(std::string name_, std::string summary_, std::string usage_, std::function<int(Args&)> run_,
            std::vector<Option> options_ = {})
        : name(std::move(name_)), summary(std::move(summary_)), usage(std::move(usage_)), run(std::move(run_)),
          options(std::move(options_))
    {
    }
    std::string name;
    std::string summary;   // one line for `wheretime --help`
    std::string usage;     // full usage text of the subcommand
    std::function<int(Args&)> run;
    std::vector<Option> options;   // empty: read from `usage` (see above)
};

// The command's options: its table, or the options its usage text names.
std::vector<Option> commandOptions(const Command& command);
// Commands sorted by name.
std::vector<Command> sortedCommands();
// The man page wheretime(1), roff (`wheretime help --man`; written at build time).
std::string manPage();

std::vector<Command>& commands();

struct RegisterCommand {
    explicit RegisterCommand(Command c) { commands().push_back(std::move(c)); }
};

// Prints "wheretime: error: <message>" on stderr and returns 1.
int fail(const std::string& message);

}  // namespace wt::cli
