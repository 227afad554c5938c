#include <migraphx/value.hpp>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>

namespace migraphx {

value::value(std::initializer_list<value> xs)
{
    bool pairs = xs.size() > 0;
    for(const auto& x : xs)
        pairs = pairs and x.is_array() and x.size() == 2 and x.get_array()[0].is_string();
    if(pairs)
    {
        object obj;
        for(const auto& x : xs)
            obj.emplace_back(x.get_array()[0].get_string(), x.get_array()[1]);
        *this = value(std::move(obj));
    }
    else
        *this = value(array(xs.begin(), xs.end()));
}

void value::throw_kind(const char* wanted) const
{
    MIGRAPHX_THROW(std::string("value: expected ") + wanted + ", got " + to_json());
}

bool value::get_bool() const
{
    if(m_kind == bool_kind or m_kind == int64_kind)
        return m_int != 0;
    if(m_kind == uint64_kind)
        return m_uint != 0;
    if(m_kind == float_kind)
        return m_float != 0;
    throw_kind("a bool");
}

std::int64_t value::get_int64() const
{
    switch(m_kind)
    {
    case bool_kind:
    case int64_kind: return m_int;
    case uint64_kind: return static_cast<std::int64_t>(m_uint);
    case float_kind:
        if(not std::isfinite(m_float) or std::abs(m_float) > 9.2e18)
            throw_kind("an integer");
        return static_cast<std::int64_t>(m_float);
    default: throw_kind("an integer");
    }
}

std::uint64_t value::get_uint64() const
{
    switch(m_kind)
    {
    case bool_kind:
    case int64_kind:
        if(m_int < 0)
            throw_kind("a non-negative integer");
        return static_cast<std::uint64_t>(m_int);
    case uint64_kind: return m_uint;
    case float_kind:
        if(not std::isfinite(m_float) or m_float < 0 or m_float > 1.8e19)
            throw_kind("a non-negative integer");
        return static_cast<std::uint64_t>(m_float);
    default: throw_kind("a non-negative integer");
    }
}

double value::get_float() const
{
    switch(m_kind)
    {
    case bool_kind:
    case int64_kind: return static_cast<double>(m_int);
    case uint64_kind: return static_cast<double>(m_uint);
    case float_kind: return m_float;
    default: throw_kind("a number");
    }
}

const std::string& value::get_string() const
{
    if(m_kind != string_kind)
        throw_kind("a string");
    return *m_string;
}
const value::array& value::get_array() const
{
    if(m_kind != array_kind)
        throw_kind("an array");
    return *m_array;
}
value::array& value::get_array()
{
    if(m_kind != array_kind)
        throw_kind("an array");
    if(m_array.use_count() > 1)
        m_array = std::make_shared<array>(*m_array);
    return *m_array;
}
const value::object& value::get_object() const
{
    if(m_kind != object_kind)
        throw_kind("an object");
    return *m_object;
}
value::object& value::get_object()
{
    if(m_kind != object_kind)
        throw_kind("an object");
    if(m_object.use_count() > 1)
        m_object = std::make_shared<object>(*m_object);
    return *m_object;
}

std::size_t value::size() const
{
    if(m_kind == array_kind)
        return m_array->size();
    if(m_kind == object_kind)
        return m_object->size();
    return 0;
}

const value* value::find(const std::string& key) const
{
    if(m_kind != object_kind)
        return nullptr;
    for(const auto& m : *m_object)
        if(m.first == key)
            return &m.second;
    return nullptr;
}

bool value::contains(const std::string& key) const { return find(key) != nullptr; }

const value& value::at(const std::string& key) const
{
    const auto* v = find(key);
    if(v == nullptr)
        MIGRAPHX_THROW("value: no key '" + key + "' in " + to_json());
    return *v;
}

const value& value::at(std::size_t i) const
{
    const auto& a = get_array();
    if(i >= a.size())
        MIGRAPHX_THROW("value: index " + std::to_string(i) + " out of range for " + to_json());
    return a[i];
}

value& value::operator[](const std::string& key)
{
    if(m_kind == null_kind)
        *this = make_object();
    auto& obj = get_object();
    for(auto& m : obj)
        if(m.first == key)
            return m.second;
    obj.emplace_back(key, value{});
    return obj.back().second;
}

void value::push_back(value v)
{
    if(m_kind == null_kind)
        *this = make_array();
    get_array().push_back(std::move(v));
}

bool operator==(const value& a, const value& b)
{
    if(a.is_number() and b.is_number() and a.m_kind != b.m_kind)
    {
        if(a.is_float() or b.is_float())
            return a.get_float() == b.get_float();
        if(a.m_kind == value::int64_kind and a.m_int < 0)
            return false;
        if(b.m_kind == value::int64_kind and b.m_int < 0)
            return false;
        return a.get_uint64() == b.get_uint64();
    }
    if(a.m_kind != b.m_kind)
        return false;
    switch(a.m_kind)
    {
    case value::null_kind: return true;
    case value::bool_kind:
    case value::int64_kind: return a.m_int == b.m_int;
    case value::uint64_kind: return a.m_uint == b.m_uint;
    case value::float_kind: return a.m_float == b.m_float;
    case value::string_kind: return *a.m_string == *b.m_string;
    case value::array_kind: return *a.m_array == *b.m_array;
    case value::object_kind: return *a.m_object == *b.m_object;
    }
    return false;
}

namespace {

void write_string(std::ostream& os, const std::string& s)
{
    os << '"';
    for(unsigned char c : s)
    {
        switch(c)
        {
        case '"': os << "\\\""; break;
        case '\\': os << "\\\\"; break;
        case '\n': os << "\\n"; break;
        case '\t': os << "\\t"; break;
        case '\r': os << "\\r"; break;
        default:
            if(c < 0x20)
            {
                char buf[8];
                std::snprintf(buf, sizeof(buf), "\\u%04x", c);
                os << buf;
            }
            else
                os << c;
        }
    }
    os << '"';
}

void write_json(std::ostream& os, const value& v)
{
    switch(v.kind())
    {
    case value::null_kind: os << "null"; break;
    case value::bool_kind: os << (v.get_bool() ? "true" : "false"); break;
    case value::int64_kind: os << v.get_int64(); break;
    case value::uint64_kind: os << v.get_uint64(); break;
    case value::float_kind:
    {
        double d = v.get_float();
        if(std::isnan(d))
            os << "NaN";
        else if(std::isinf(d))
            os << (d < 0 ? "-Infinity" : "Infinity");
        else
        {
            std::ostringstream ss;
            ss << std::setprecision(std::numeric_limits<double>::max_digits10) << d;
            auto s = ss.str();
            if(s.find_first_of(".eE") == std::string::npos)
                s += ".0";
            os << s;
        }
        break;
    }
    case value::string_kind: write_string(os, v.get_string()); break;
    case value::array_kind:
    {
        os << "[";
        bool first = true;
        for(const auto& x : v.get_array())
        {
            os << (first ? "" : ",");
            first = false;
            write_json(os, x);
        }
        os << "]";
        break;
    }
    case value::object_kind:
    {
        os << "{";
        bool first = true;
        for(const auto& m : v.get_object())
        {
            os << (first ? "" : ",");
            first = false;
            write_string(os, m.first);
            os << ":";
            write_json(os, m.second);
        }
        os << "}";
        break;
    }
    }
}

/// Relaxed JSON reader: unquoted identifier keys, single or double quoted strings, NaN/Infinity.
struct json_reader
{
    const std::string& s;
    std::size_t pos = 0;
    int depth       = 0;

    [[noreturn]] void fail(const std::string& what) const
    {
        MIGRAPHX_THROW("malformed JSON at offset " + std::to_string(pos) + ": " + what + " in '" + s + "'");
    }
    void skip_ws()
    {
        while(pos < s.size() and std::isspace(static_cast<unsigned char>(s[pos])))
            pos++;
    }
    bool eat(char c)
    {
        skip_ws();
        if(pos < s.size() and s[pos] == c)
        {
            pos++;
            return true;
        }
        return false;
    }
    void expect(char c)
    {
        if(not eat(c))
            fail(std::string("expected '") + c + "'");
    }
    static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) or c == '_' or c == '-' or c == '.' or c == '+'; }

    std::string read_string()
    {
        char q = s[pos++];
        std::string r;
        while(true)
        {
            if(pos >= s.size())
                fail("unterminated string");
            char c = s[pos++];
            if(c == q)
                break;
            if(c == '\\')
            {
                if(pos >= s.size())
                    fail("unterminated escape");
                char e = s[pos++];
                switch(e)
                {
                case 'n': r += '\n'; break;
                case 't': r += '\t'; break;
                case 'r': r += '\r'; break;
                case 'b': r += '\b'; break;
                case 'f': r += '\f'; break;
                case 'u':
                {
                    if(pos + 4 > s.size())
                        fail("bad \\u escape");
                    unsigned code = std::stoul(s.substr(pos, 4), nullptr, 16);
                    pos += 4;
                    if(code < 0x80)
                        r += static_cast<char>(code);
                    else if(code < 0x800)
                    {
                        r += static_cast<char>(0xc0 | (code >> 6));
                        r += static_cast<char>(0x80 | (code & 0x3f));
                    }
                    else
                    {
                        r += static_cast<char>(0xe0 | (code >> 12));
                        r += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
                        r += static_cast<char>(0x80 | (code & 0x3f));
                    }
                    break;
                }
                default: r += e;
                }
            }
            else
                r += c;
        }
        return r;
    }

    std::string read_ident()
    {
        auto start = pos;
        while(pos < s.size() and ident_char(s[pos]))
            pos++;
        if(start == pos)
            fail("unexpected character");
        return s.substr(start, pos - start);
    }

    value read_scalar_token()
    {
        auto tok = read_ident();
        if(tok == "true")
            return true;
        if(tok == "false")
            return false;
        if(tok == "null")
            return nullptr;
        if(tok == "NaN" or tok == "nan")
            return std::numeric_limits<double>::quiet_NaN();
        if(tok == "Infinity" or tok == "inf" or tok == "+Infinity")
            return std::numeric_limits<double>::infinity();
        if(tok == "-Infinity" or tok == "-inf")
            return -std::numeric_limits<double>::infinity();
        bool is_int = tok.find_first_of(".eE") == std::string::npos;
        try
        {
            std::size_t used = 0;
            if(is_int)
            {
                if(tok[0] == '-')
                {
                    auto x = std::stoll(tok, &used);
                    if(used == tok.size())
                        return x;
                }
                else
                {
                    auto x = std::stoull(tok, &used);
                    if(used == tok.size())
                        return value(static_cast<std::int64_t>(x) >= 0 ? value(static_cast<std::int64_t>(x))
                                                                      : value(x));
                }
            }
            auto d = std::stod(tok, &used);
            if(used == tok.size())
                return d;
        }
        catch(const std::exception&)
        {
        }
        // A bare word is taken as a string (relaxed form: {mode:max}).
        return tok;
    }

    value read_value()
    {
        if(++depth > 200)
            fail("nesting too deep");
        skip_ws();
        if(pos >= s.size())
            fail("unexpected end");
        value r;
        char c = s[pos];
        if(c == '{')
        {
            pos++;
            r = value::make_object();
            if(not eat('}'))
            {
                do
                {
                    skip_ws();
                    if(pos >= s.size())
                        fail("unexpected end in object");
                    std::string key = (s[pos] == '"' or s[pos] == '\'') ? read_string() : read_ident();
                    expect(':');
                    r.get_object().emplace_back(key, read_value());
                } while(eat(','));
                expect('}');
            }
        }
        else if(c == '[')
        {
            pos++;
            r = value::make_array();
            if(not eat(']'))
            {
                do
                    r.get_array().push_back(read_value());
                while(eat(','));
                expect(']');
            }
        }
        else if(c == '"' or c == '\'')
            r = read_string();
        else
            r = read_scalar_token();
        depth--;
        return r;
    }
};

} // namespace

value value::from_json(const std::string& text)
{
    json_reader reader{text};
    auto v = reader.read_value();
    reader.skip_ws();
    if(reader.pos != text.size())
        reader.fail("trailing characters");
    return v;
}

std::string value::to_json() const
{
    std::ostringstream ss;
    write_json(ss, *this);
    return ss.str();
}

std::ostream& operator<<(std::ostream& os, const value& v)
{
    if(v.is_string())
        return os << v.get_string();
    if(v.is_float())
        return os << v.get_float();
    return os << v.to_json();
}

} // namespace migraphx
