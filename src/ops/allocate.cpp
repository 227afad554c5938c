// allocate[shape=S]: a fresh buffer of shape S, no inputs. Lowered ops take their output buffer as
// their last input, made by an allocate; memory_coloring then replaces every allocate by a load
// from one scratch buffer, which is itself an allocate carrying scratch=1 (attributes() then
// contains "scratch", which program::get_memory_usage looks for). scratch prints only when set.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {
namespace {

struct allocate
{
    shape s{};
    bool scratch = false;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.s, "shape");
        f(self.scratch, "scratch");
    }
    std::string name() const { return "allocate"; }
    value attributes() const
    {
        if(scratch)
            return {{"scratch", true}};
        return value::make_object();
    }
    void print_attributes(std::ostream& os) const
    {
        os << "shape=" << s;
        if(scratch)
            os << ",scratch=1";
    }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(0);
        if(s.type() == shape::tuple_type or s.dynamic())
            cs.fail("cannot allocate a tuple or dynamic shape");
        return s;
    }
    argument compute(const shape& output_shape, const std::vector<argument>&) const { return argument{output_shape}; }
};
MIGRAPHX_REGISTER_OP(allocate)

} // namespace
} // namespace op
} // namespace migraphx
