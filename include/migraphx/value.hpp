#ifndef MIGRAPHX_VALUE_HPP
#define MIGRAPHX_VALUE_HPP

#include <migraphx/errors.hpp>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace migraphx {

/// The attribute tree: null, bool, integer, float, string, array, or an ordered object of keyed values.
/// It carries op attributes (make_op), options, and serialized programs.
struct value
{
    enum kind_t
    {
        null_kind,
        bool_kind,
        int64_kind,
        uint64_kind,
        float_kind,
        string_kind,
        array_kind,
        object_kind
    };
    using array  = std::vector<value>;
    using member = std::pair<std::string, value>;
    using object = std::vector<member>;

    value() = default;
    value(std::nullptr_t) {} // NOLINT
    value(bool b) : m_kind(bool_kind), m_int(b ? 1 : 0) {} // NOLINT
    template <class T,
              std::enable_if_t<std::is_integral<T>{} and not std::is_same<T, bool>{} and std::is_signed<T>{}, int> = 0>
    value(T x) : m_kind(int64_kind), m_int(static_cast<std::int64_t>(x)) // NOLINT
    {
    }
    template <class T,
              std::enable_if_t<std::is_integral<T>{} and not std::is_same<T, bool>{} and std::is_unsigned<T>{}, int> = 0>
    value(T x) : m_kind(uint64_kind), m_uint(static_cast<std::uint64_t>(x)) // NOLINT
    {
    }
    template <class T, std::enable_if_t<std::is_enum<T>{}, int> = 0>
    value(T x) : value(static_cast<std::int64_t>(x)) // NOLINT: shape::float_type etc.
    {
    }
    value(double d) : m_kind(float_kind), m_float(d) {} // NOLINT
    value(float d) : m_kind(float_kind), m_float(d) {} // NOLINT
    value(const char* s) : m_kind(string_kind), m_string(std::make_shared<std::string>(s)) {} // NOLINT
    value(std::string s) : m_kind(string_kind), m_string(std::make_shared<std::string>(std::move(s))) {} // NOLINT
    value(array a) : m_kind(array_kind), m_array(std::make_shared<array>(std::move(a))) {} // NOLINT
    value(object o) : m_kind(object_kind), m_object(std::make_shared<object>(std::move(o))) {} // NOLINT
    /// Braces build an array, or an object when every element is a {"key", v} pair:
    /// value{{"axis", 1}, {"dims", {2, 3}}} is an object, value{1, 2} an array.
    value(std::initializer_list<value> xs); // NOLINT
    template <class T>
    value(const std::vector<T>& xs) : value(array(xs.begin(), xs.end())) // NOLINT
    {
    }

    static value make_object() { return value(object{}); }
    static value make_array() { return value(array{}); }

    kind_t kind() const { return m_kind; }
    bool is_null() const { return m_kind == null_kind; }
    bool is_bool() const { return m_kind == bool_kind; }
    bool is_integer() const { return m_kind == int64_kind or m_kind == uint64_kind; }
    bool is_number() const { return is_integer() or m_kind == float_kind or m_kind == bool_kind; }
    bool is_float() const { return m_kind == float_kind; }
    bool is_string() const { return m_kind == string_kind; }
    bool is_array() const { return m_kind == array_kind; }
    bool is_object() const { return m_kind == object_kind; }

    bool get_bool() const;
    std::int64_t get_int64() const;
    std::uint64_t get_uint64() const;
    double get_float() const;
    const std::string& get_string() const;
    const array& get_array() const;
    array& get_array();
    const object& get_object() const;
    object& get_object();

    /// Elements of an array or members' count of an object.
    std::size_t size() const;
    bool empty() const { return size() == 0; }
    bool contains(const std::string& key) const;
    /// Member of an object; throws naming the key if absent.
    const value& at(const std::string& key) const;
    const value& at(std::size_t i) const;
    /// Member of an object, inserted as null if absent.
    value& operator[](const std::string& key);
    const value* find(const std::string& key) const;
    void push_back(value v);
    void insert(const std::string& key, value v) { (*this)[key] = std::move(v); }

    /// Converts to a C++ type: numbers, bool, string, vectors of those.
    template <class T>
    T to() const;
    template <class T>
    std::vector<T> to_vector() const
    {
        std::vector<T> r;
        if(is_array())
            for(const auto& x : get_array())
                r.push_back(x.to<T>());
        else
            r.push_back(to<T>());
        return r;
    }

    /// Relaxed JSON: keys may be unquoted ({padding:[0,0],stride:[1,1]}); standard JSON also parses.
    static value from_json(const std::string& text);
    std::string to_json() const;

    friend bool operator==(const value& a, const value& b);
    friend bool operator!=(const value& a, const value& b) { return not(a == b); }
    friend std::ostream& operator<<(std::ostream& os, const value& v);

    private:
    kind_t m_kind = null_kind;
    union
    {
        std::int64_t m_int = 0;
        std::uint64_t m_uint;
        double m_float;
    };
    std::shared_ptr<std::string> m_string;
    std::shared_ptr<array> m_array;
    std::shared_ptr<object> m_object;
    [[noreturn]] void throw_kind(const char* wanted) const;
};

template <class T>
T value::to() const
{
    if constexpr(std::is_same<T, value>{})
        return *this;
    else if constexpr(std::is_same<T, std::string>{})
    {
        if(is_string())
            return get_string();
        return to_json();
    }
    else if constexpr(std::is_same<T, bool>{})
        return get_bool();
    else if constexpr(std::is_floating_point<T>{})
        return static_cast<T>(get_float());
    else if constexpr(std::is_integral<T>{} and std::is_signed<T>{})
        return static_cast<T>(get_int64());
    else if constexpr(std::is_integral<T>{})
        return static_cast<T>(get_uint64());
    else if constexpr(std::is_enum<T>{})
        return static_cast<T>(get_int64());
    else
        static_assert(std::is_same<T, void>{}, "value::to: unsupported type");
}

} // namespace migraphx

#endif
