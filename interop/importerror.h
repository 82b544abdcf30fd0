// The error every importer and exporter throws: a complete one-line reason that names the file.
#pragma once

#include <stdexcept>
#include <string>

namespace wt::interop {

class ImportError : public std::runtime_error {
public:
    ImportError(const std::string& file, const std::string& what) : std::runtime_error(oneLine(file + ": " + what)) {}

private:
    // Messages quote SQLite and parser text, which can hold newlines (a malformed schema's SQL).
    static std::string oneLine(std::string s)
    {
        for (char& c : s)
            if (c == '\n' || c == '\r' || c == '\t')
                c = ' ';
        if (s.size() > 400)
            s = s.substr(0, 397) + "...";
        return s;
    }
};

}  // namespace wt::interop
