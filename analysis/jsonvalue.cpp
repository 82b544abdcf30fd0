#include "analysis/jsonvalue.h"

#include <simdjson.h>

namespace wt {

namespace od = simdjson::ondemand;

struct JsonBuilder {
    // Depth-first over the On-Demand value: every byte is visited, so damage anywhere is found.
    static void build(od::value v, JsonValue& out, int depth)
    {
        if (depth > 64)
            throw JsonError(where(out) + "nested deeper than 64 levels");
        switch (v.type()) {
        case od::json_type::object: {
            out.m_type = JsonValue::Type::Object;
            out.m_text.clear();
            for (auto field : v.get_object()) {
                std::string key(field.unescaped_key().value());
                JsonValue child;
                child.m_path = out.m_path.empty() ? key : out.m_path + "." + key;
                build(field.value(), child, depth + 1);
                out.m_fields.emplace_back(std::move(key), std::move(child));
            }
            break;
        }
        case od::json_type::array: {
            out.m_type = JsonValue::Type::Array;
            out.m_text.clear();
            for (auto item : v.get_array()) {
                JsonValue child;
                child.m_path = out.m_path + "[" + std::to_string(out.m_items.size()) + "]";
                build(item.value(), child, depth + 1);
                out.m_items.push_back(std::move(child));
            }
            break;
        }
        case od::json_type::number: {
            std::string_view raw = v.raw_json_token();
            while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
                raw.remove_suffix(1);
            out.m_type = JsonValue::Type::Number;
            out.m_text = std::string(raw);
            out.m_number = v.get_double();
            break;
        }
        case od::json_type::string:
            out.m_type = JsonValue::Type::String;
            out.m_text = std::string(v.get_string().value());
            break;
        case od::json_type::boolean:
            out.m_type = JsonValue::Type::Bool;
            out.m_text = bool(v.get_bool()) ? "true" : "false";
            break;
        case od::json_type::null:
            if (!v.is_null())
                throw JsonError(where(out) + "invalid literal");
            out.m_type = JsonValue::Type::Null;
            out.m_text = "null";
            break;
        }
    }
    static std::string where(const JsonValue& v) { return v.m_path.empty() ? std::string() : v.m_path + ": "; }
};

namespace {

// Whether the text ends inside a string or an open object or array: simdjson names a cut
// document by where the cut fell (a number, the structure), the user wants "truncated".
bool endsOpen(std::string_view text)
{
    int depth = 0;
    bool inString = false, escaped = false;
    for (char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return inString || depth > 0;
}

std::string describe(simdjson::error_code e, std::string_view text)
{
    if (e == simdjson::EMPTY)
        return "empty text, not JSON";
    if (e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || e == simdjson::UNCLOSED_STRING || endsOpen(text))
        return "truncated JSON";
    return std::string("invalid JSON (") + simdjson::error_message(e) + ")";
}

}  // namespace

JsonValue JsonValue::parse(std::string_view text)
{
    JsonValue root;
    try {
        simdjson::padded_string padded(text);
        od::parser parser;
        od::document doc = parser.iterate(padded);
        const od::json_type t = doc.type();
        if (t != od::json_type::object && t != od::json_type::array)
            throw JsonError("expected a JSON object or array");
        JsonBuilder::build(doc.get_value(), root, 0);
        // One document only: anything after it (a second document, stray text) is damage.
        if (doc.current_location().error() == simdjson::SUCCESS)
            throw JsonError("text after the end of the JSON document");
    } catch (const simdjson::simdjson_error& e) {
        throw JsonError(describe(e.error(), text));
    }
    return root;
}

const char* JsonValue::typeName(Type t)
{
    switch (t) {
    case Type::Null: return "null";
    case Type::Bool: return "a boolean";
    case Type::Number: return "a number";
    case Type::String: return "a string";
    case Type::Array: return "an array";
    case Type::Object: return "an object";
    }
    return "a value";
}

std::string JsonValue::fieldPath(std::string_view key) const
{
    return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
}

const JsonValue* JsonValue::find(std::string_view key) const
{
    if (m_type != Type::Object)
        return nullptr;
    for (const auto& [k, v] : m_fields)
        if (k == key)
            return &v;
    return nullptr;
}

const JsonValue& JsonValue::expectObject() const&
{
    if (m_type != Type::Object)
        throw JsonError((m_path.empty() ? std::string("the document") : m_path) + ": " + typeName(m_type) + ", not an object");
    return *this;
}

const JsonValue* JsonValue::typedField(std::string_view key, Type want, bool required) const
{
    expectObject();
    const JsonValue* v = find(key);
    if (!v) {
        if (required)
            throw JsonError(fieldPath(key) + ": missing");
        return nullptr;
    }
    if (v->m_type != want)
        throw JsonError(fieldPath(key) + ": " + typeName(v->m_type) + ", not " + typeName(want));
    return v;
}

std::optional<double> JsonValue::optionalNumber(std::string_view key) const
{
    const JsonValue* v = typedField(key, Type::Number, false);
    return v ? std::optional<double>(v->m_number) : std::nullopt;
}

std::optional<std::string> JsonValue::optionalString(std::string_view key) const
{
    const JsonValue* v = typedField(key, Type::String, false);
    return v ? std::optional<std::string>(v->m_text) : std::nullopt;
}

double JsonValue::requiredNumber(std::string_view key) const { return typedField(key, Type::Number, true)->m_number; }

std::string JsonValue::requiredString(std::string_view key) const { return typedField(key, Type::String, true)->m_text; }

const JsonValue& JsonValue::requiredArray(std::string_view key) const& { return *typedField(key, Type::Array, true); }

}  // namespace wt
