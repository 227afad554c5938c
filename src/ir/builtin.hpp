#ifndef MIGRAPHX_IR_BUILTIN_HPP
#define MIGRAPHX_IR_BUILTIN_HPP

#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <migraphx/shape.hpp>
#include <string>
#include <vector>

namespace migraphx {
namespace builtin {

// The special instructions every module has. The evaluator handles them itself; compute throws.

struct literal
{
    std::string name() const { return "@literal"; }
    shape compute_shape(const std::vector<shape>&) const { MIGRAPHX_THROW("@literal: shape is fixed"); }
};

struct param
{
    std::string parameter;
    std::uint32_t order = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.parameter, "parameter");
        f(self.order, "order");
    }
    std::string name() const { return "@param"; }
    shape compute_shape(const std::vector<shape>&) const { MIGRAPHX_THROW("@param: shape is fixed"); }
};

struct returns
{
    std::string name() const { return "@return"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        if(inputs.size() == 1)
            return inputs.front();
        return shape{inputs};
    }
};

} // namespace builtin
} // namespace migraphx

#endif
