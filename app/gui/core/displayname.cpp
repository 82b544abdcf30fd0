#include "displayname.h"

#include "render/shortname.h"

namespace wt::gui {

namespace {
bool g_fullNames = false;   // GUI thread only
}

void setFullNames(bool full) { g_fullNames = full; }
bool fullNames() { return g_fullNames; }

QString displayName(const QString& name)
{
    if (g_fullNames)
        return name;
    return QString::fromStdString(shortName(name.toStdString()));
}

QStringList distinctNames(const QStringList& names)
{
    if (g_fullNames)
        return names;
    std::vector<std::string> in;
    in.reserve(size_t(names.size()));
    for (const QString& n : names)
        in.push_back(n.toStdString());
    QStringList out;
    out.reserve(names.size());
    for (const std::string& l : distinctLabels(in, 0))
        out << QString::fromStdString(l);
    return out;
}

QString elideName(const QFontMetrics& fm, const QString& name, int px)
{
    return elideShort(fm, displayName(name), px);
}

QString elideShort(const QFontMetrics& fm, const QString& s, int px)
{
    if (fm.horizontalAdvance(s) <= px)
        return s;
    const QString kind = QString::fromStdString(memcpyKind(s.toStdString()));   // the short form keeps it
    if (!kind.isEmpty() && fm.horizontalAdvance(kind) <= px)
        return kind;
    return fm.elidedText(s, Qt::ElideMiddle, px);
}

}  // namespace wt::gui
