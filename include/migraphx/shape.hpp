#ifndef MIGRAPHX_SHAPE_HPP
#define MIGRAPHX_SHAPE_HPP

#include <migraphx/errors.hpp>
#include <migraphx/fp8.hpp>
#include <migraphx/half.hpp>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace migraphx {

/// The type, lengths and strides of a tensor. Strides are in elements.
/// A dynamic shape has {min, max, optimals} per dimension instead of fixed lengths.
struct shape
{
    enum type_t
    {
        bool_type,
        half_type,
        float_type,
        double_type,
        uint8_type,
        int8_type,
        uint16_type,
        int16_type,
        int32_type,
        int64_type,
        uint32_type,
        uint64_type,
        fp8e4m3fn_type, // OCP FP8 E4M3 (ONNX FLOAT8E4M3FN); MIGraphX's name
        tuple_type
    };

    /// One dimension of a dynamic shape.
    struct dynamic_dimension
    {
        std::size_t min = 0;
        std::size_t max = 0;
        std::set<std::size_t> optimals{};
        bool is_fixed() const { return min == max; }
        bool within(std::size_t x) const { return x >= min and x <= max; }
        friend bool operator==(const dynamic_dimension& a, const dynamic_dimension& b)
        {
            return a.min == b.min and a.max == b.max and a.optimals == b.optimals;
        }
        friend bool operator!=(const dynamic_dimension& a, const dynamic_dimension& b) { return not(a == b); }
        friend std::ostream& operator<<(std::ostream& os, const dynamic_dimension& d);
    };

    shape();
    shape(type_t t); // NOLINT: a scalar-less empty shape of a type, as MIGraphX
    shape(type_t t, std::vector<std::size_t> l);
    shape(type_t t, std::vector<std::size_t> l, std::vector<std::size_t> s);
    /// A dynamic shape ({min, max, optimals} per dim). A factory, not a constructor, so that
    /// shape{float_type, {3}} stays unambiguous.
    static shape from_dyn_dims(type_t t, std::vector<dynamic_dimension> dims);
    explicit shape(const std::vector<shape>& sub_shapes); // tuple

    /// A shape with lens and strides that shares the type of this one.
    shape with_lens(const std::vector<std::size_t>& l) const;
    shape with_type(type_t t) const;
    static shape from_permutation(type_t t, const std::vector<std::size_t>& l, const std::vector<std::int64_t>& perm);

    type_t type() const;
    const std::vector<std::size_t>& lens() const;
    const std::vector<std::size_t>& strides() const;
    const std::vector<dynamic_dimension>& dyn_dims() const;
    const std::vector<shape>& sub_shapes() const;
    std::size_t ndim() const;

    /// Number of logical elements.
    std::size_t elements() const;
    /// Bytes of the memory the shape spans (element_space * type size).
    std::size_t bytes() const;
    std::size_t type_size() const;
    /// One past the largest element offset reachable through the strides.
    std::size_t element_space() const;

    /// Offset in elements of a multi-index.
    std::size_t index(const std::vector<std::size_t>& idx) const;
    /// Offset in elements of the i-th element in row-major logical order.
    std::size_t index(std::size_t i) const;
    /// Multi-index of the i-th element in row-major logical order.
    std::vector<std::size_t> multi(std::size_t i) const;
    void multi_copy(std::size_t i, std::size_t* out, std::size_t n) const;

    /// Row-major contiguous (strides match the standard ones, broadcast 1-dims allowed).
    bool standard() const;
    /// Occupies exactly elements() slots with no gaps or overlaps.
    bool packed() const;
    /// Packed but not in row-major order.
    bool transposed() const;
    /// Some stride is 0 over a length above 1.
    bool broadcasted() const;
    /// A single element broadcast to all positions (all strides 0).
    bool scalar() const;
    bool dynamic() const;
    bool any_of_dynamic() const;

    /// The standard (row-major) shape with the same lens and type.
    shape as_standard() const;

    std::string type_string() const;
    static std::string type_name(type_t t);
    static type_t parse_type(const std::string& name);
    static std::size_t type_size(type_t t);
    static bool is_integral(type_t t);
    static bool is_signed(type_t t);
    static bool is_floating(type_t t)
    {
        return t == half_type or t == float_type or t == double_type or t == fp8e4m3fn_type;
    }
    static std::vector<std::size_t> standard_strides(const std::vector<std::size_t>& lens);

    friend bool operator==(const shape& a, const shape& b);
    friend bool operator!=(const shape& a, const shape& b) { return not(a == b); }
    friend std::ostream& operator<<(std::ostream& os, const shape& s);

    /// C++ type of each shape type, for visit().
    template <class T>
    struct as
    {
        using type = T;
        T operator()(double x) const { return static_cast<T>(x); }
    };

    /// Calls f(shape::as<T>{}) with T the C++ type of t.
    template <class F>
    static void visit(type_t t, F&& f)
    {
        switch(t)
        {
        case bool_type: f(as<bool>{}); return;
        case half_type: f(as<half>{}); return;
        case float_type: f(as<float>{}); return;
        case double_type: f(as<double>{}); return;
        case uint8_type: f(as<std::uint8_t>{}); return;
        case int8_type: f(as<std::int8_t>{}); return;
        case uint16_type: f(as<std::uint16_t>{}); return;
        case int16_type: f(as<std::int16_t>{}); return;
        case int32_type: f(as<std::int32_t>{}); return;
        case int64_type: f(as<std::int64_t>{}); return;
        case uint32_type: f(as<std::uint32_t>{}); return;
        case uint64_type: f(as<std::uint64_t>{}); return;
        case fp8e4m3fn_type: f(as<fp8e4m3fn>{}); return;
        case tuple_type: break;
        }
        throw_visit_error(t);
    }
    template <class F>
    void visit_type(F&& f) const
    {
        visit(type(), std::forward<F>(f));
    }

    /// The shape type of a C++ type.
    template <class T>
    static constexpr type_t get_type()
    {
        using U = std::remove_cv_t<T>;
        if constexpr(std::is_same<U, bool>{}) return bool_type;
        else if constexpr(std::is_same<U, half>{}) return half_type;
        else if constexpr(std::is_same<U, fp8e4m3fn>{}) return fp8e4m3fn_type;
        else if constexpr(std::is_same<U, float>{}) return float_type;
        else if constexpr(std::is_same<U, double>{}) return double_type;
        else if constexpr(std::is_same<U, std::uint8_t>{}) return uint8_type;
        else if constexpr(std::is_same<U, std::int8_t>{}) return int8_type;
        else if constexpr(std::is_same<U, std::uint16_t>{}) return uint16_type;
        else if constexpr(std::is_same<U, std::int16_t>{}) return int16_type;
        else if constexpr(std::is_same<U, std::int32_t>{}) return int32_type;
        else if constexpr(std::is_same<U, std::int64_t>{}) return int64_type;
        else if constexpr(std::is_same<U, std::uint32_t>{}) return uint32_type;
        else if constexpr(std::is_same<U, std::uint64_t>{}) return uint64_type;
        else if constexpr(std::is_same<U, long long>{}) return int64_type;
        else if constexpr(std::is_same<U, unsigned long long>{}) return uint64_type;
        else if constexpr(std::is_same<U, char>{}) return int8_type;
        else return tuple_type;
    }

    private:
    [[noreturn]] static void throw_visit_error(type_t t);
    struct impl;
    std::shared_ptr<const impl> m_impl;
};

} // namespace migraphx

#endif
