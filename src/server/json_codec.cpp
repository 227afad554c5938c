#include "server/json_codec.hpp"
#include "server/error.hpp"
#include <migraphx/half.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace migraphx {
namespace server {

namespace {

using json = nlohmann::json;

template <class T>
void append_value(const json& v, std::string& out)
{
    T x{};
    if constexpr(std::is_same<T, bool>{})
    {
        if(v.is_boolean())
            x = v.get<bool>();
        else if(v.is_number_integer() and (v.get<std::int64_t>() == 0 or v.get<std::int64_t>() == 1))
            x = v.get<std::int64_t>() == 1;
        else
            throw bad_request("BOOL data must be true/false, got " + v.dump());
    }
    else if constexpr(std::is_integral<T>{})
    {
        if(v.is_number_unsigned())
        {
            auto u = v.get<std::uint64_t>();
            if(u > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
                throw bad_request("value " + v.dump() + " does not fit the datatype");
            x = static_cast<T>(u);
        }
        else if(v.is_number_integer())
        {
            auto s = v.get<std::int64_t>();
            if(s < static_cast<std::int64_t>(std::numeric_limits<T>::min()) or
               (s > 0 and static_cast<std::uint64_t>(s) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
                throw bad_request("value " + v.dump() + " does not fit the datatype");
            x = static_cast<T>(s);
        }
        else
            throw bad_request("integer data expected, got " + v.dump());
    }
    else
    {
        if(not v.is_number())
            throw bad_request("numeric data expected, got " + v.dump());
        x = static_cast<T>(v.get<double>());
    }
    char bytes[sizeof(T)];
    std::memcpy(bytes, &x, sizeof(T));
    out.append(bytes, sizeof(T));
}

template <class T>
void append_flat(const json& data, std::string& out, int depth = 0)
{
    if(data.is_array())
    {
        if(depth > 32)
            throw bad_request("'data' is nested more than 32 levels deep");
        for(const auto& e : data)
            append_flat<T>(e, out, depth + 1);
    }
    else
        append_value<T>(data, out);
}

template <class T>
T read_value(const std::string& data, std::size_t i)
{
    T x;
    std::memcpy(&x, data.data() + i * sizeof(T), sizeof(T));
    return x;
}

std::vector<std::int64_t> read_shape(const json& j, const std::string& what)
{
    if(not j.is_array())
        throw bad_request(what + ": 'shape' must be an array of integers");
    std::vector<std::int64_t> r;
    for(const auto& d : j)
    {
        if(not d.is_number_integer())
            throw bad_request(what + ": 'shape' must be an array of integers");
        r.push_back(d.get<std::int64_t>());
    }
    return r;
}

// parameters.<key> as bool (true/false or a non-zero number), false when absent.
bool bool_parameter(const json& obj, const char* key)
{
    if(not obj.is_object() or not obj.contains("parameters"))
        return false;
    const auto& p = obj["parameters"];
    if(not p.is_object() or not p.contains(key))
        return false;
    const auto& v = p[key];
    return v.is_boolean() ? v.get<bool>() : (v.is_number() and v.get<double>() != 0);
}

infer_request parse_request_json(const std::string& body, std::size_t header_length)
{
    std::size_t json_len = header_length == no_header_length ? body.size() : header_length;
    if(json_len > body.size())
        throw bad_request("Inference-Header-Content-Length (" + std::to_string(header_length) +
                          ") is larger than the body (" + std::to_string(body.size()) + " bytes)");
    json j = json::parse(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(json_len), nullptr, false);
    if(j.is_discarded())
        throw bad_request("malformed JSON in the request body");
    if(not j.is_object())
        throw bad_request("the request must be a JSON object");
    infer_request r;
    if(j.contains("id"))
    {
        if(not j["id"].is_string())
            throw bad_request("'id' must be a string");
        r.id = j["id"].get<std::string>();
    }
    r.binary_outputs = bool_parameter(j, "binary_data_output");
    if(not j.contains("inputs") or not j["inputs"].is_array())
        throw bad_request("the request has no 'inputs' array");
    std::size_t offset = json_len;
    for(const auto& in : j["inputs"])
    {
        if(not in.is_object() or not in.contains("name") or not in["name"].is_string())
            throw bad_request("every input needs a 'name'");
        tensor t;
        t.name          = in["name"].get<std::string>();
        std::string what = "input '" + t.name + "'";
        if(not in.contains("datatype") or not in["datatype"].is_string())
            throw bad_request(what + ": no 'datatype'");
        t.type = parse_datatype(in["datatype"].get<std::string>());
        if(not in.contains("shape"))
            throw bad_request(what + ": no 'shape'");
        t.shape      = read_shape(in["shape"], what);
        auto n       = element_count(t.shape);
        auto nbytes  = n * shape::type_size(t.type);
        bool has_bin = in.contains("parameters") and in["parameters"].is_object() and
                       in["parameters"].contains("binary_data_size");
        if(has_bin)
        {
            const auto& s = in["parameters"]["binary_data_size"];
            if(not s.is_number_unsigned())
                throw bad_request(what + ": binary_data_size must be a non-negative integer");
            auto size = s.get<std::uint64_t>();
            if(size != nbytes)
                throw bad_request(what + ": binary_data_size " + std::to_string(size) + " does not match shape and datatype (" +
                                  std::to_string(nbytes) + " bytes)");
            if(header_length == no_header_length)
                throw bad_request(what + ": binary data without an Inference-Header-Content-Length header");
            if(size > body.size() - offset)
                throw bad_request(what + ": the body holds fewer binary bytes than binary_data_size");
            t.data.assign(body, offset, size);
            offset += size;
        }
        else
        {
            if(not in.contains("data"))
                throw bad_request(what + ": no 'data' (nor parameters.binary_data_size)");
            // a number takes at least two characters of the body: no larger reservation than
            // that for a shape that claims more
            t.data.reserve(std::min<std::size_t>(nbytes, body.size() / 2 * shape::type_size(t.type)));
            shape::visit(t.type, [&](auto as) {
                using T = typename decltype(as)::type;
                if constexpr(std::is_class<T>{}) // half, fp8e4m3fn: JSON numbers, rounded
                {
                    std::string f;
                    append_flat<float>(in["data"], f);
                    for(std::size_t i = 0; i < f.size() / sizeof(float); i++)
                    {
                        T h(read_value<float>(f, i));
                        t.data.append(reinterpret_cast<const char*>(&h), sizeof(h));
                    }
                }
                else
                    append_flat<T>(in["data"], t.data);
            });
            if(t.data.size() != nbytes)
                throw bad_request(what + ": 'data' has " + std::to_string(t.data.size() / shape::type_size(t.type)) +
                                  " elements, the shape needs " + std::to_string(n));
        }
        r.inputs.push_back(std::move(t));
    }
    if(offset != body.size())
        throw bad_request("the body has " + std::to_string(body.size() - offset) +
                          " bytes after the JSON and binary tensors that no input claims");
    if(j.contains("outputs"))
    {
        if(not j["outputs"].is_array())
            throw bad_request("'outputs' must be an array");
        for(const auto& o : j["outputs"])
        {
            if(not o.is_object() or not o.contains("name") or not o["name"].is_string())
                throw bad_request("every requested output needs a 'name'");
            r.outputs.push_back({o["name"].get<std::string>(), bool_parameter(o, "binary_data") or r.binary_outputs});
        }
    }
    return r;
}

} // namespace

void append_json_data(const nlohmann::json& data, shape::type_t t, std::string& out)
{
    shape::visit(t, [&](auto as) {
        using T = typename decltype(as)::type;
        if constexpr(not std::is_class<T>{})
            append_flat<T>(data, out);
    });
}

infer_request parse_infer_request(const std::string& body, std::size_t header_length)
{
    try
    {
        return parse_request_json(body, header_length);
    }
    catch(const json::exception& e)
    {
        throw bad_request(std::string("bad request JSON: ") + e.what());
    }
}

nlohmann::json json_data(const tensor& t)
{
    json a = json::array();
    shape::visit(t.type, [&](auto as) {
        using T = typename decltype(as)::type;
        std::size_t n = t.data.size() / sizeof(T);
        for(std::size_t i = 0; i < n; i++)
        {
            auto x = read_value<T>(t.data, i);
            if constexpr(std::is_class<T>{})
                a.push_back(static_cast<float>(x));
            else
                a.push_back(x);
        }
    });
    return a;
}

std::string write_infer_response(const infer_response& r, std::size_t& json_length)
{
    json j;
    j["model_name"]    = r.model;
    j["model_version"] = r.version;
    if(not r.id.empty())
        j["id"] = r.id;
    j["outputs"] = json::array();
    std::string binary;
    for(const auto& t : r.outputs)
    {
        json o;
        o["name"]     = t.name;
        o["datatype"] = datatype_name(t.type);
        o["shape"]    = t.shape;
        if(t.binary)
        {
            o["parameters"]["binary_data_size"] = t.data.size();
            binary += t.data;
        }
        else
            o["data"] = json_data(t);
        j["outputs"].push_back(std::move(o));
    }
    std::string body = j.dump(-1, ' ', false, json::error_handler_t::replace);
    json_length      = body.size();
    body += binary;
    return body;
}

std::string error_json(const std::string& msg)
{
    return json{{"error", msg}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace server
} // namespace migraphx
