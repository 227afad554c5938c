// load[offset=N,end=M](buffer): a view of shape `shape` starting `offset` bytes into buffer (the
// scratch allocate that memory_coloring places at the start of a module); M = offset + the
// shape's bytes. Attributes (reflect order): shape, offset.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {
namespace {

struct load
{
    shape s{};
    std::size_t offset = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.s, "shape");
        f(self.offset, "offset");
    }
    std::string name() const { return "load"; }
    void print_attributes(std::ostream& os) const { os << "offset=" << offset << ",end=" << offset + s.bytes(); }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only();
        if(s.type() == shape::tuple_type or s.dynamic())
            cs.fail("cannot load a tuple or dynamic shape");
        if(s.elements() > 0 and offset + s.bytes() > inputs[0].bytes())
            cs.fail("bytes " + std::to_string(offset) + " to " + std::to_string(offset + s.bytes()) +
                    " lie outside the buffer");
        return s;
    }
    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        return args.at(0).view(output_shape, offset);
    }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(load)

} // namespace
} // namespace op
} // namespace migraphx
