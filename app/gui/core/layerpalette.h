// Stable colors for layers (and any other named group): the same name gets the same color in
// every view, every run and every process, because the color comes from a fixed hash (FNV-1a
// of the UTF-8 name) into a fixed palette of distinguishable colors, never from qHash (seeded).
#pragma once

#include <QColor>
#include <QRgb>

#include <cstdint>
#include <string_view>

namespace wt::gui {

class LayerPalette {
public:
    static constexpr int kSize = 20;

    // Index into the palette for a name; stable across runs and platforms.
    static int indexOf(std::string_view name);
    static QRgb colorAt(int index);
    static QRgb color(std::string_view name) { return colorAt(indexOf(name)); }
    // Kernels and scopes without a name (no scope): a neutral grey.
    static QRgb neutral() { return qRgb(150, 150, 150); }
    // A group of a breakdown or range summary: by name, neutral for the groups without a
    // scope, layer or phase (analysis's "(no scope)", "(no layer)", "(no phase)").
    static QRgb groupColor(std::string_view name);
    // FNV-1a 32 bit; exposed for tests.
    static uint32_t hash(std::string_view text);
};

}  // namespace wt::gui
