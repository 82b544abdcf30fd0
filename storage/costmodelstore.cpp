#include "costmodelstore.h"

#include "isotime.h"
#include "statement.h"
#include "storageerror.h"

namespace wt {

void CostModelStore::put(const StoredCostModel& model)
{
    if (m_db.readOnly())
        throw StorageError(m_db.path() + ": opened read-only; cannot store a cost model");
    if (model.kind != "device" && model.kind != "predictor")
        throw StorageError("cost model kind must be device or predictor, not '" + model.kind + "'");
    if (model.name.empty())
        throw StorageError("a cost model needs a name");
    Statement s(m_db.handle(), "INSERT OR REPLACE INTO cost_models(name, kind, created_at, body) VALUES (?,?,?,?)");
    s.bind(1, model.name).bind(2, model.kind).bind(3, model.createdAt.empty() ? isoUtcNow() : model.createdAt).bind(4, model.body);
    s.run();
}

std::optional<StoredCostModel> CostModelStore::get(const std::string& name) const
{
    Statement s(m_db.handle(), "SELECT name, kind, created_at, body FROM cost_models WHERE name=?");
    s.bind(1, name);
    if (!s.step())
        return std::nullopt;
    return StoredCostModel{s.text(0), s.text(1), s.text(2), s.text(3)};
}

std::vector<StoredCostModel> CostModelStore::list(const std::string& kind) const
{
    std::vector<StoredCostModel> out;
    Statement s(m_db.handle(), "SELECT name, kind, created_at, body FROM cost_models WHERE ?1='' OR kind=?1 ORDER BY name");
    s.bind(1, kind);
    while (s.step())
        out.push_back(StoredCostModel{s.text(0), s.text(1), s.text(2), s.text(3)});
    return out;
}

}  // namespace wt
