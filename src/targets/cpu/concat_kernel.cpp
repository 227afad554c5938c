#include "targets/cpu/concat_kernel.hpp"
#include "ir/strided_copy.hpp"
#include "passes/pass_utils.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>

namespace migraphx {
namespace cpu {

shape concat_kernel::compute_shape(const std::vector<shape>& all) const
{
    auto in = own_inputs(all, planned);
    if(in.empty() or axis < 0 or static_cast<std::size_t>(axis) >= in[0].ndim())
        MIGRAPHX_THROW("cpu::concat: expects inputs and an axis within their rank");
    auto lens = in[0].lens();
    lens[axis] = 0;
    for(const auto& s : in)
    {
        if(s.dynamic() or s.type() != in[0].type() or s.ndim() != lens.size())
            MIGRAPHX_THROW("cpu::concat: inputs must be static, of one type and rank");
        for(std::size_t i = 0; i < lens.size(); i++)
            if(i != static_cast<std::size_t>(axis) and s.lens()[i] != lens[i])
                MIGRAPHX_THROW("cpu::concat: dims differ off the concat axis");
        lens[axis] += s.lens()[axis];
    }
    return planned_shape(name(), {in[0].type(), lens}, all, planned);
}

argument concat_kernel::compute(const shape& out, const std::vector<argument>& args) const
{
    argument result = result_buffer(out, args, planned);
    std::vector<shape> parts;
    std::vector<const char*> srcs;
    for(const auto& arg : own_inputs(args, planned))
    {
        parts.push_back(arg.get_shape());
        srcs.push_back(arg.data());
    }
    copy_concat(parts, srcs, static_cast<std::size_t>(axis), out, result.data());
    return result;
}

MIGRAPHX_REGISTER_OP(concat_kernel)

void lower_concat::apply(module& m) const
{
    auto dd = pass_utils::data_dependent(m); // run by the reference ops, at their actual sizes
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() != "concat" or dd.count(&*ins) > 0 or ins->get_shape().dynamic() or
           ins->get_shape().type() == shape::tuple_type)
            continue;
        auto rank = static_cast<std::int64_t>(ins->get_shape().ndim());
        auto axis = ins->get_operator().to_value().at("axis").get_int64();
        if(axis < 0)
            axis += rank;
        if(axis < 0 or axis >= rank)
            continue; // the reference op reports it
        m.replace_instruction(ins, operation{concat_kernel{axis}}, ins->inputs());
    }
}

} // namespace cpu
} // namespace migraphx
