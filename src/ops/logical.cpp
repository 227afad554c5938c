// Logical ops on bool inputs (bool output) and bitwise_and on integers or bool.
#include <migraphx/register_op.hpp>
#include "ops/pointwise.hpp"

namespace migraphx {
namespace op {
namespace {

using elementwise::binary_base;

template <class Derived>
struct logical_base : binary_base<Derived>
{
    static bool accepts(shape::type_t t) { return t == shape::bool_type; }
    value attributes() const { return {{"pointwise", true}, {"commutative", true}}; }
};

struct logical_and_op : logical_base<logical_and_op>
{
    std::string name() const { return "logical_and"; }
    static auto apply()
    {
        return [](bool a, bool b) { return a and b; };
    }
};
MIGRAPHX_REGISTER_OP(logical_and_op)

struct logical_or_op : logical_base<logical_or_op>
{
    std::string name() const { return "logical_or"; }
    static auto apply()
    {
        return [](bool a, bool b) { return a or b; };
    }
};
MIGRAPHX_REGISTER_OP(logical_or_op)

struct logical_xor_op : logical_base<logical_xor_op>
{
    std::string name() const { return "logical_xor"; }
    static auto apply()
    {
        return [](bool a, bool b) { return a != b; };
    }
};
MIGRAPHX_REGISTER_OP(logical_xor_op)

struct bitwise_and_op : binary_base<bitwise_and_op>
{
    std::string name() const { return "bitwise_and"; }
    value attributes() const { return {{"pointwise", true}, {"commutative", true}}; }
    static bool accepts(shape::type_t t) { return shape::is_integral(t) or t == shape::bool_type; }
    static auto apply()
    {
        return [](auto a, auto b) {
            using T = decltype(a);
            if constexpr(std::is_integral<T>{})
                return static_cast<T>(a & b);
            else // never reached: compute_shape accepts integers only
                return a;
        };
    }
};
MIGRAPHX_REGISTER_OP(bitwise_and_op)

} // namespace
} // namespace op
} // namespace migraphx
