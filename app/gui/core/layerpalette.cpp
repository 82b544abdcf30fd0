#include "layerpalette.h"

#include "analysis/grouping.h"

namespace wt::gui {

namespace {

// Twenty colors that stay apart on light and dark backgrounds (hue-spread, mid lightness).
constexpr QRgb kColors[LayerPalette::kSize] = {
    0xff4e79a7, 0xfff28e2b, 0xffe15759, 0xff76b7b2, 0xff59a14f,
    0xffedc948, 0xffb07aa1, 0xffff9da7, 0xff9c755f, 0xff86bcb6,
    0xff3b8bc2, 0xffd37295, 0xff8cd17d, 0xffb6992d, 0xff499894,
    0xffe58606, 0xff5d69b1, 0xff52bca3, 0xffcc61b0, 0xff99c945,
};

}  // namespace

uint32_t LayerPalette::hash(std::string_view text)
{
    uint32_t h = 2166136261u;
    for (unsigned char c : text) {
        h ^= c;
        h *= 16777619u;
    }
    return h;
}

int LayerPalette::indexOf(std::string_view name)
{
    return int(hash(name) % uint32_t(kSize));
}

QRgb LayerPalette::colorAt(int index)
{
    return kColors[((index % kSize) + kSize) % kSize];
}

QRgb LayerPalette::groupColor(std::string_view name)
{
    if (name.empty() || name == kNoScope || name == kNoLayer || name == kNoPhase)
        return neutral();
    return color(name);
}

}  // namespace wt::gui
