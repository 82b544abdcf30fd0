// The error every importer and exporter throws: a complete one-line reason that names the file.
#pragma once

#include <stdexcept>
#include <string>

namespace wt::interop {

class ImportError : public std::runtime_error {
public:
    ImportError(const std::string& file, const std::string& what) : std::runtime_error(file + ": " + what) {}
};

}  // namespace wt::interop
