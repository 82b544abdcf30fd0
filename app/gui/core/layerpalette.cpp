#include "layerpalette.h"

#include "analysis/grouping.h"
#include "analysis/kernelcategory.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace wt::gui {

namespace {

// Twenty colors that stay apart on light and dark backgrounds (hue-spread, mid lightness); no
// two closer than 50 in the sum of channel differences (slot 9 was a near twin of slot 3, slot
// 16 of slot 0).
constexpr QRgb kBase[LayerPalette::kSize] = {
    0xff4e79a7, 0xfff28e2b, 0xffe15759, 0xff76b7b2, 0xff59a14f,
    0xffedc948, 0xffb07aa1, 0xffff9da7, 0xff9c755f, 0xff17becf,
    0xff3b8bc2, 0xffd37295, 0xff8cd17d, 0xffb6992d, 0xff499894,
    0xffe58606, 0xff7f3c8d, 0xff52bca3, 0xffcc61b0, 0xff99c945,
};
constexpr int kTableSize = LayerPalette::kCount;

}  // namespace

int LayerPalette::distance(QRgb a, QRgb b)
{
    return std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b));
}

namespace {

// The base colours, then hues around the circle by the golden angle at three saturation and
// value steps, each kept only when it is at least kMinDistance (sum of channel differences)
// from every colour before it: 64 colours no two of which look alike at a glance.
const std::vector<QRgb>& table()
{
    static const std::vector<QRgb> t = [] {
        constexpr int kMinDistance = 60;
        std::vector<QRgb> out(std::begin(kBase), std::end(kBase));
        for (int k = 0; out.size() < size_t(kTableSize) && k < 4000; ++k) {
            const int hue = int(std::fmod(k * 137.508, 360.0));
            const int sat = 120 + (k % 3) * 55;
            const int val = 235 - ((k / 3) % 3) * 45;
            const QRgb c = QColor::fromHsv(hue, sat, val).rgb();
            const int gap = kMinDistance - (k / 1000) * 15;   // relaxed only if the space fills up
            if (std::all_of(out.begin(), out.end(), [&](QRgb o) { return LayerPalette::distance(o, c) >= gap; }))
                out.push_back(c);
        }
        return out;
    }();
    return t;
}

bool isNeutralName(std::string_view name)
{
    return name.empty() || name == kNoScope || name == kNoLayer || name == kNoPhase;
}

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
    const std::vector<QRgb>& t = table();
    const int n = int(t.size());
    return t[size_t(((index % n) + n) % n)];
}

LayerPalette::LayerPalette(const std::vector<std::string>& layers)
{
    const std::set<std::string> names(layers.begin(), layers.end());   // sorted: order-free result
    std::vector<bool> used;
    auto take = [&](int slot) {
        if (size_t(slot) >= used.size())
            used.resize(size_t(slot) + 1, false);
        used[size_t(slot)] = true;
    };
    auto isUsed = [&](int slot) { return size_t(slot) < used.size() && used[size_t(slot)]; };
    std::vector<const std::string*> moved;
    // First every name on its own hash slot, then the collided ones on the free slots in order.
    for (const std::string& n : names) {
        if (isNeutralName(n))
            continue;
        const int slot = indexOf(n);
        if (isUsed(slot)) {
            moved.push_back(&n);
            continue;
        }
        take(slot);
        m_slot.emplace(n, slot);
    }
    int next = 0;
    for (const std::string* n : moved) {
        while (isUsed(next))
            ++next;
        take(next);
        m_slot.emplace(*n, next);
    }
}

QRgb LayerPalette::color(std::string_view name) const
{
    auto it = m_slot.find(std::string(name));
    return it != m_slot.end() ? colorAt(it->second) : groupColor(name);
}

QRgb LayerPalette::groupColor(std::string_view name)
{
    return isNeutralName(name) ? neutral() : hashColor(name);
}

QRgb LayerPalette::categoryColor(std::string_view category)
{
    // Fixed, well-separated colours for the built-in categories (hashed colours made gemm and
    // communication two near-identical pinks); user categories hash like other groups.
    static const std::unordered_map<std::string_view, QRgb> colors = {
        {kCategoryGemm, 0xff4e79a7},          {kCategoryAttention, 0xfff28e2b},  {kCategoryCommunication, 0xffe15759},
        {kCategoryConvolution, 0xff76b7b2},   {kCategoryNormalization, 0xff59a14f}, {kCategorySoftmax, 0xffedc948},
        {kCategoryElementwise, 0xffb07aa1},   {kCategoryReduction, 0xffff9da7}, {kCategoryMemory, 0xff9c755f},
        {kCategoryOther, 0xffbab0ac}};
    auto it = colors.find(category);
    return it != colors.end() ? it->second : groupColor(category);
}

QRgb LayerPalette::deviceTimeColor(int segment)
{
    static const QRgb kColors[] = {0xff4e79a7, 0xff59a14f, 0xffe15759, 0xfff28e2b, 0xffd8d8d8};
    constexpr int n = int(sizeof kColors / sizeof kColors[0]);
    return kColors[std::clamp(segment, 0, n - 1)];
}

}  // namespace wt::gui
