#include "kernelname.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace wt::capture {

std::string demangle(std::string_view raw)
{
    // Itanium C++ ABI names start with _Z; anything else (C names, our bracketed memcpy
    // names, cuBLAS's extern "C" kernels) is already what a person reads.
    if (raw.size() < 3 || raw.substr(0, 2) != "_Z")
        return std::string(raw);
    std::string symbol(raw);   // __cxa_demangle needs a terminated string
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
                                                    &std::free);
    if (status != 0 || !out)
        return symbol;
    return out.get();
}

bool isOwnKernel(std::string_view raw)
{
    // Mangled: nested name wt::kernels (functions and templates in it and in its anonymous
    // namespace); demangled or plain: the qualified name.
    return raw.substr(0, 14) == "_ZN2wt7kernels" || raw.find("wt::kernels::") != std::string_view::npos;
}

std::string readableKernelName(std::string_view raw, std::string_view opName)
{
    if (!opName.empty() && isOwnKernel(raw))
        return std::string(opName);
    return demangle(raw);
}

}  // namespace wt::capture
