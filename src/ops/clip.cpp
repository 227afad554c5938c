// clip(x, min, max) = min(max(x, min), max): three inputs of one type and equal lens (the
// parser broadcasts scalar bounds). A NaN x stays NaN.
#include <migraphx/register_op.hpp>
#include "ops/pointwise.hpp"

namespace migraphx {
namespace op {
namespace {

struct clip_op : elementwise::op_base<clip_op, 3>
{
    std::string name() const { return "clip"; }
    static auto apply()
    {
        return [](auto x, auto lo, auto hi) {
            auto y = x < lo ? lo : x;
            return hi < y ? hi : y;
        };
    }
};
MIGRAPHX_REGISTER_OP(clip_op)

} // namespace
} // namespace op
} // namespace migraphx
