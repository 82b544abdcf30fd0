// The app's one palette module: every colour a view gives a thing comes from here.
//   - Layers: a run's layers each get their own colour (LayerPalette built from the run's layer
//     names), and a layer keeps that colour in every view of the run (timeline, pie, table,
//     details, compare timelines, sweep view, report), since they all ask the run's palette.
//     A name prefers the slot its fixed hash picks (FNV-1a of the UTF-8 name, never qHash,
//     which is seeded), so a layer's colour is the same in every run with the same layer names;
//     names whose slots collide move to free slots (in name order), past the 20 base colours
//     to generated ones. Anything else named (kernels, ops, phases) takes its hash colour.
//   - Series by position (runs of a compare, ops of a stack, lines of a sweep): seriesColor.
//   - Fixed meanings: kernel categories, the device bar's parts, slower/faster, forward/backward.
#pragma once

#include <QColor>
#include <QRgb>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace wt::gui {

class LayerPalette {
public:
    static constexpr int kSize = 20;    // base colours; colorAt(kSize and up) are generated ones
    static constexpr int kCount = 64;   // colours in all (colorAt repeats after)

    LayerPalette() = default;
    // Each distinct name of `layers` gets its own colour (the names without a scope, layer or
    // phase stay neutral). The result depends only on the set of names, not on their order.
    explicit LayerPalette(const std::vector<std::string>& layers);

    // The layer's assigned colour; a name not among the layers takes groupColor(name).
    QRgb color(std::string_view name) const;
    size_t layerCount() const { return m_slot.size(); }

    // Index into the palette for a name; stable across runs and platforms.
    static int indexOf(std::string_view name);
    // Base colours for index < kSize, then generated colours that stay apart from all earlier
    // ones (64 in all, then repeating).
    static QRgb colorAt(int index);
    static QRgb hashColor(std::string_view name) { return colorAt(indexOf(name)); }
    // Kernels and scopes without a name (no scope): a neutral grey.
    static QRgb neutral() { return qRgb(150, 150, 150); }
    // A group without a run's palette: by name, neutral for analysis's "(no scope)",
    // "(no layer)", "(no phase)".
    static QRgb groupColor(std::string_view name);
    // How far apart two colours are: the sum of the channel differences (0..765). Any two
    // colours of colorAt(0..kCount-1) are at least 50 apart.
    static int distance(QRgb a, QRgb b);
    // FNV-1a 32 bit; exposed for tests.
    static uint32_t hash(std::string_view text);

    // The i-th of a list of series (compare runs, ops of a stacked bar, sweep lines): the base
    // colours in order, then the generated ones; distinct for the first 64.
    static QColor seriesColor(int index) { return QColor::fromRgb(colorAt(index)); }
    // Fixed colours of the built-in kernel categories (analysis/kernelcategory.h); a user
    // category takes groupColor.
    static QRgb categoryColor(std::string_view category);
    // The device bar: compute, communication overlapped, communication exposed, memory
    // exposed, idle (analysis/gputime.h's deviceBarSegments order).
    static QRgb deviceTimeColor(int segment);
    static QColor slowerColor() { return QColor(0xe4, 0x57, 0x56); }
    static QColor fasterColor() { return QColor(0x54, 0xa2, 0x4b); }
    static QColor forwardColor() { return QColor::fromRgb(colorAt(0)); }
    static QColor backwardColor() { return QColor::fromRgb(colorAt(1)); }
    static QRgb otherColor() { return 0xffc8c8c8; }   // the merged "other" slice or series

private:
    std::unordered_map<std::string, int> m_slot;   // layer name -> palette index
};

}  // namespace wt::gui
