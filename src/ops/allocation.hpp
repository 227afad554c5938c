#ifndef MIGRAPHX_OPS_ALLOCATION_HPP
#define MIGRAPHX_OPS_ALLOCATION_HPP

// What every allocation op shares (allocate, cpu::allocate, hip::hip_allocate_memory): the shape
// it allocates, whether it is the scratch buffer memory_coloring made (attributes() then contains
// "scratch", which program::get_memory_usage looks for), and no inputs.

#include <migraphx/errors.hpp>
#include <migraphx/shape.hpp>
#include <migraphx/value.hpp>
#include <string>
#include <vector>

namespace migraphx {

struct allocation_fields
{
    shape s{};
    bool scratch = false;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.s, "shape");
        f(self.scratch, "scratch");
    }
    value attributes() const
    {
        if(scratch)
            return {{"scratch", true}};
        return value::make_object();
    }
    /// The allocated shape, after checking that op has no inputs and s is a plain tensor.
    shape allocated_shape(const std::string& op, const std::vector<shape>& inputs) const
    {
        if(not inputs.empty())
            MIGRAPHX_THROW(op + ": takes no inputs, got " + std::to_string(inputs.size()));
        if(s.type() == shape::tuple_type or s.dynamic())
            MIGRAPHX_THROW(op + ": cannot allocate a tuple or dynamic shape");
        return s;
    }
};

} // namespace migraphx

#endif
