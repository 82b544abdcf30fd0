// Subcommands of the `wheretime` CLI register themselves here; main() dispatches by name.
// Exit codes: 0 success, 1 failure (bad file, I/O), 2 usage error.
#pragma once

#include "app/cli/args.h"

#include <functional>
#include <string>
#include <vector>

namespace wt::cli {

struct Command {
    std::string name;
    std::string summary;   // one line for `wheretime --help`
    std::string usage;     // full usage text of the subcommand
    std::function<int(Args&)> run;
};

std::vector<Command>& commands();

struct RegisterCommand {
    explicit RegisterCommand(Command c) { commands().push_back(std::move(c)); }
};

// Prints "wheretime: error: <message>" on stderr and returns 1.
int fail(const std::string& message);

}  // namespace wt::cli
