// Named cost models kept in a file (schema version 2): device calibrations ("device", written
// by `wheretime calibrate`) and fitted predictors ("predictor", `wheretime predict --fit`).
// Bodies are JSON that analysis/ writes and reads; storage only keeps them by name.
#pragma once

#include "database.h"

#include <optional>
#include <string>
#include <vector>

namespace wt {

struct StoredCostModel {
    std::string name;
    std::string kind;        // "device" | "predictor"
    std::string createdAt;   // ISO 8601 UTC
    std::string body;        // JSON
};

class CostModelStore {
public:
    explicit CostModelStore(Database& db) : m_db(db) {}
    // Replaces a model of the same name. Throws StorageError (read-only file, bad kind).
    void put(const StoredCostModel& model);
    std::optional<StoredCostModel> get(const std::string& name) const;
    std::vector<StoredCostModel> list(const std::string& kind = {}) const;

private:
    Database& m_db;
};

}  // namespace wt
