#include "table.h"

#include <stdexcept>

namespace wt {

std::string_view toString(Unit unit)
{
    switch (unit) {
    case Unit::Text: return "text";
    case Unit::Ns: return "ns";
    case Unit::Share: return "share";
    case Unit::Count: return "count";
    case Unit::Ratio: return "ratio";
    case Unit::Percent: return "percent";
    case Unit::Flops: return "FLOPs";
    case Unit::FlopPerS: return "FLOP/s";
    case Unit::Bytes: return "bytes";
    case Unit::BytesPerS: return "B/s";
    case Unit::ExpPerS: return "exp/s";
    case Unit::Number: return "number";
    }
    return "number";
}

Table& Table::add(std::string columnId, std::string title, Unit unit, bool inText)
{
    columns.push_back(Column{std::move(columnId), std::move(title), unit, inText});
    for (auto& r : rows)
        r.resize(columns.size());
    return *this;
}

std::vector<Cell>& Table::addRow()
{
    rows.emplace_back(columns.size());
    return rows.back();
}

size_t Table::column(std::string_view columnId) const
{
    for (size_t i = 0; i < columns.size(); ++i)
        if (columns[i].id == columnId)
            return i;
    return npos;
}

const Cell& Table::at(size_t row, std::string_view columnId) const
{
    const size_t c = column(columnId);
    if (c == npos)
        throw std::out_of_range("table " + id + " has no column " + std::string(columnId));
    return rows.at(row).at(c);
}

Cell& Table::at(size_t row, std::string_view columnId)
{
    const size_t c = column(columnId);
    if (c == npos)
        throw std::out_of_range("table " + id + " has no column " + std::string(columnId));
    return rows.at(row).at(c);
}

bool isNone(const Cell& c) { return std::holds_alternative<std::monostate>(c); }

double numberOf(const Cell& c)
{
    if (const auto* i = std::get_if<int64_t>(&c))
        return double(*i);
    if (const auto* d = std::get_if<double>(&c))
        return *d;
    return 0;
}

const std::string& textOf(const Cell& c)
{
    static const std::string empty;
    const auto* s = std::get_if<std::string>(&c);
    return s ? *s : empty;
}

}  // namespace wt
