// Comparisons: two inputs of one type and equal lens; the output is bool_type. MIGraphX has
// only equal, greater and less; the ONNX parser builds the others with `not`.
#include <migraphx/register_op.hpp>
#include "ops/pointwise.hpp"

namespace migraphx {
namespace op {
namespace {

using elementwise::binary_base;

struct equal_op : binary_base<equal_op, bool>
{
    std::string name() const { return "equal"; }
    value attributes() const { return {{"pointwise", true}, {"commutative", true}}; }
    static auto apply()
    {
        return [](auto a, auto b) { return a == b; };
    }
};
MIGRAPHX_REGISTER_OP(equal_op)

struct greater_op : binary_base<greater_op, bool>
{
    std::string name() const { return "greater"; }
    static auto apply()
    {
        return [](auto a, auto b) { return a > b; };
    }
};
MIGRAPHX_REGISTER_OP(greater_op)

struct less_op : binary_base<less_op, bool>
{
    std::string name() const { return "less"; }
    static auto apply()
    {
        return [](auto a, auto b) { return a < b; };
    }
};
MIGRAPHX_REGISTER_OP(less_op)

} // namespace
} // namespace op
} // namespace migraphx
