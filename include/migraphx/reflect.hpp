#ifndef MIGRAPHX_REFLECT_HPP
#define MIGRAPHX_REFLECT_HPP

#include <migraphx/shape.hpp>
#include <migraphx/value.hpp>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace migraphx {

// An op lists its attributes once:
//   template <class Self, class F> static void reflect(Self& self, F f)
//   { f(self.axis, "axis"); f(self.dims, "dims"); }
// and that list gives printing, equality, to_value/from_value (make_op, serialization).

namespace detail {
/// A stand-in visitor for detecting reflect() (a lambda cannot appear in decltype before C++20).
struct reflect_probe
{
    template <class U>
    void operator()(U&&, const char*) const
    {
    }
};
} // namespace detail

template <class T, class = void>
struct has_reflect : std::false_type
{
};
template <class T>
struct has_reflect<T, std::void_t<decltype(T::reflect(std::declval<T&>(), detail::reflect_probe{}))>>
    : std::true_type
{
};

template <class T>
struct is_vector : std::false_type
{
};
template <class T>
struct is_vector<std::vector<T>> : std::true_type
{
};

value shape_to_value(const shape& s);
shape shape_from_value(const value& v);

template <class T>
value field_to_value(const T& x);
template <class T>
void field_from_value(const value& v, T& x, const char* name);

template <class T>
value reflect_to_value(const T& x)
{
    value::object obj;
    T::reflect(const_cast<T&>(x), [&](auto& field, const char* name) { obj.emplace_back(name, field_to_value(field)); });
    return value(std::move(obj));
}

template <class T>
value field_to_value(const T& x)
{
    if constexpr(std::is_same<T, value>{})
        return x;
    else if constexpr(std::is_same<T, shape>{})
        return shape_to_value(x);
    else if constexpr(std::is_enum<T>{})
        return static_cast<std::int64_t>(x);
    else if constexpr(std::is_same<T, half>{})
        return static_cast<double>(static_cast<float>(x));
    else if constexpr(is_vector<T>{})
    {
        value::array a;
        for(const auto& e : x)
            a.push_back(field_to_value(e));
        return value(std::move(a));
    }
    else if constexpr(has_reflect<T>{})
        return reflect_to_value(x);
    else
        return value(x);
}

template <class T>
void field_from_value(const value& v, T& x, const char* name)
{
    try
    {
        if constexpr(std::is_same<T, value>{})
            x = v;
        else if constexpr(std::is_same<T, shape>{})
            x = shape_from_value(v);
        else if constexpr(std::is_same<T, half>{})
            x = half(v.to<float>());
        else if constexpr(is_vector<T>{})
        {
            T r;
            if(v.is_array())
            {
                for(const auto& e : v.get_array())
                {
                    typename T::value_type y{};
                    field_from_value(e, y, name);
                    r.push_back(y);
                }
            }
            else if(not v.is_null())
            {
                typename T::value_type y{};
                field_from_value(v, y, name);
                r.push_back(y);
            }
            x = std::move(r);
        }
        else if constexpr(has_reflect<T>{})
            T::reflect(x, [&](auto& field, const char* n) {
                if(v.contains(n))
                    field_from_value(v.at(n), field, n);
            });
        else
            x = v.to<T>();
    }
    catch(const exception& e)
    {
        MIGRAPHX_THROW(std::string("attribute '") + name + "': " + e.what());
    }
}

/// Prints an attribute as the spec's program text does: {1, 2}, 0/1 for bools, shapes as types.
template <class T>
void print_field(std::ostream& os, const T& x)
{
    if constexpr(std::is_same<T, bool>{})
        os << (x ? 1 : 0);
    else if constexpr(std::is_same<T, std::int8_t>{} or std::is_same<T, std::uint8_t>{})
        os << static_cast<int>(x);
    else if constexpr(std::is_enum<T>{})
        os << static_cast<std::int64_t>(x);
    else if constexpr(is_vector<T>{})
    {
        os << "{";
        bool first = true;
        for(const auto& e : x)
        {
            if(not first)
                os << ", ";
            first = false;
            print_field(os, e);
        }
        os << "}";
    }
    else if constexpr(has_reflect<T>{})
    {
        os << "{";
        bool first = true;
        T::reflect(const_cast<T&>(x), [&](auto& field, const char* name) {
            if(not first)
                os << ", ";
            first = false;
            os << name << "=";
            print_field(os, field);
        });
        os << "}";
    }
    else
        os << x;
}

} // namespace migraphx

#endif
