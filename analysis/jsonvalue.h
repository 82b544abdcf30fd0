// The JSON reader of analysis/: a parsed document (simdjson On-Demand, read whole) as a small tree,
// for the bodies this project stores and reads back: a run's configuration (variants.cpp), a
// device calibration (costmodel.cpp) and a fitted predictor (predictor.cpp). Strings are unescaped
// (a '}' or '"' inside one is text); a number keeps the text it was written with, so settings
// compare as stored. Errors are one line and name where they are: "truncated JSON",
// "classes[2].ns_per_flop: a string, not a number".
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wt {

struct JsonError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class JsonValue {
public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    // The whole text, one document whose root is an object or an array. Throws JsonError.
    static JsonValue parse(std::string_view text);

    Type type() const { return m_type; }
    bool isObject() const { return m_type == Type::Object; }
    bool isArray() const { return m_type == Type::Array; }
    // Where the value is in its document: "" for the root, "classes[2].key".
    const std::string& path() const { return m_path; }
    // String: the unescaped text; Number: as written; Bool: "true" or "false"; Null: "null".
    const std::string& text() const { return m_text; }
    double number() const { return m_number; }   // Number only (else 0)
    const std::vector<JsonValue>& items() const { return m_items; }                            // Array
    const std::vector<std::pair<std::string, JsonValue>>& fields() const { return m_fields; }  // Object, in order

    // The object's field `key` (the first when repeated); null when missing or not an object.
    const JsonValue* find(std::string_view key) const;
    // Typed fields of an object: a missing field is nullopt (required: JsonError "path.key: missing");
    // a field of another type is a JsonError ("path.key: a string, not a number").
    std::optional<double> optionalNumber(std::string_view key) const;
    std::optional<std::string> optionalString(std::string_view key) const;
    double requiredNumber(std::string_view key) const;
    std::string requiredString(std::string_view key) const;
    const JsonValue& requiredArray(std::string_view key) const&;
    // Throws JsonError "path: an array, not an object" unless the value is an object.
    const JsonValue& expectObject() const&;
    // Not on a temporary (parse(text).expectObject() would dangle): keep the document first.
    const JsonValue& requiredArray(std::string_view key) const&& = delete;
    const JsonValue& expectObject() const&& = delete;

    static const char* typeName(Type t);

private:
    const JsonValue* typedField(std::string_view key, Type want, bool required) const;
    std::string fieldPath(std::string_view key) const;

    Type m_type = Type::Null;
    double m_number = 0;
    std::string m_text = "null";
    std::string m_path;
    std::vector<JsonValue> m_items;
    std::vector<std::pair<std::string, JsonValue>> m_fields;

    friend struct JsonBuilder;
};

}  // namespace wt
