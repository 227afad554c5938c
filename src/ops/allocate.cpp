// allocate[shape=S]: a fresh buffer of shape S, no inputs. Lowered ops take their output buffer as
// their last input, made by an allocate; memory_coloring then replaces every allocate by a load
// from one scratch buffer, which is itself an allocate carrying scratch=1 (attributes() then
// contains "scratch", which program::get_memory_usage looks for). scratch prints only when set.
#include <migraphx/register_op.hpp>
#include "ops/allocation.hpp"

namespace migraphx {
namespace op {
namespace {

struct allocate : allocation_fields
{
    std::string name() const { return "allocate"; }
    void print_attributes(std::ostream& os) const
    {
        os << "shape=" << s;
        if(scratch)
            os << ",scratch=1";
    }
    shape compute_shape(const std::vector<shape>& inputs) const { return allocated_shape(name(), inputs); }
    argument compute(const shape& output_shape, const std::vector<argument>&) const { return argument{output_shape}; }
};
MIGRAPHX_REGISTER_OP(allocate)

} // namespace
} // namespace op
} // namespace migraphx
