// Command-line arguments of one subcommand: positionals, `--key value`, `--key=value`, flags.
// A subcommand declares what it accepts; anything else is a usage error (exit 2).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wt::cli {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One option of a command: the single definition that parsing, `wheretime help`, the shell
// completions and the man page read (see command.h).
struct Option {
    std::string name;    // "--json", "-o"
    std::string value;   // what it takes, e.g. "FILE", "N"; empty for a flag
    std::string help;    // one line
};

class Args {
public:
    Args(std::vector<std::string> argv) : m_argv(std::move(argv)) {}

    // Declare options before parse(): valued options take the next argument; a `several` option
    // (help: "--fit FILE[:RUN]...") takes it and every argument after it up to the next option.
    void parse(const std::vector<std::string>& valued, const std::vector<std::string>& flags,
               const std::vector<std::string>& several = {});
    // Parses with the command's own option table (Command::options, set by main()); an option
    // whose value ends in "..." takes several.
    void parse();
    void setOptions(const std::vector<Option>* options) { m_options = options; }

    const std::vector<std::string>& positionals() const { return m_positionals; }
    bool flag(const std::string& name) const;
    std::optional<std::string> value(const std::string& name) const;
    std::vector<std::string> values(const std::string& name) const;   // repeatable options
    std::string value(const std::string& name, const std::string& fallback) const;
    long long integer(const std::string& name, long long fallback) const;   // UsageError when not a number

private:
    std::vector<std::string> m_argv;
    std::vector<std::string> m_positionals;
    std::vector<std::pair<std::string, std::string>> m_values;
    std::vector<std::string> m_flags;
    const std::vector<Option>* m_options = nullptr;
};

// Splits "FILE:RUN" into file and run selector; a ':' inside an existing path is kept.
std::pair<std::string, std::string> splitRunSelector(const std::string& text);

}  // namespace wt::cli
