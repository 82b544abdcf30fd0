// Readable short forms of kernel, op and API names, the one rule of the timeline, the tables,
// the charts and the CLI's --width. C++ kernel names lose their return type, namespaces,
// template arguments and parameter list (`void at::native::vectorized_elementwise_kernel<4,
// ...>(int, ...)` reads `vectorized_elementwise_kernel`); Kineto's `autograd::engine::
// evaluate_function: MulBackward0` reads `MulBackward0`; `[CUDA memcpy HtoD]` reads `memcpy
// HtoD`. Where the short forms of two names of one view are the same, `distinctLabels` gives
// those names longer forms until they differ, so elision never makes two names look alike.
// The full name stays what CSV, JSON, tooltips and the details show.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace wt {

// The forms of a name from the shortest (the default label) to the name itself, each more
// detailed than the one before: for a C++ signature `base`, `base<template args>`, the
// signature without its return type, the full name. A name with nothing to shorten (aten::mm,
// a path, an NVTX range) has one form, itself. Mangled names (_Z...) are demangled first.
std::vector<std::string> nameForms(std::string_view name);
// nameForms(name).front().
std::string shortName(std::string_view name);
// "HtoD", "DtoH", "DtoD", "HtoH", "PtoP" for a memcpy name (Nsight's "[CUDA memcpy HtoD]",
// Kineto's "Memcpy HtoD (Pageable -> Device)", CUPTI's), else empty: what a label keeps
// however narrow it gets.
std::string memcpyKind(std::string_view name);
// A name's label in at most `width` code points (0: no limit): its short form when it fits,
// else a memcpy's kind when that fits, else the short form elided in the middle.
std::string fitName(std::string_view name, size_t width);
// Labels for the names of one view (a table column, a chart's legend), each at most `width`
// code points (0: no limit), equal names labelled alike and different names differently:
// each name starts at its short form, and names whose labels collide step to longer forms;
// names whose every form collides show the tokens where they differ ("split_…unweighted_…
// cta_…"), else a window from the first differing character, and as a last resort " #k".
std::vector<std::string> distinctLabels(const std::vector<std::string>& names, size_t width);

}  // namespace wt
