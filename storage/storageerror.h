// The one error type of storage/: its message is a complete one-line reason for the user.
#pragma once

#include <stdexcept>
#include <string>

namespace wt {

class StorageError : public std::runtime_error {
public:
    explicit StorageError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace wt
