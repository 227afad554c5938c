// pointwise(x_0..x_n-1), [m]: one fused elementwise computation, made by fuse_pointwise.
//
// The sub-module m holds only parameters, pointwise ops, constants and one @return of one value.
// Its parameters x0, x1, ... (in the order they were added, which is the order of the inputs)
// have the full shape of their input as a standard shape {type, lens}: the op's inputs all have
// equal lens and any strides (broadcast and transposed views included). A scalar constant is a
// one-element literal, broadcast to the lens inside m (multibroadcast/broadcast of the literal).
// The result is standard, of the @return's type and the inputs' lens.
//
// The reference compute runs m on the whole tensors (its parameters bound to the inputs), which
// is correct but not fast; targets compile m into their own kernels.
#include <algorithm>
#include <migraphx/module.hpp>
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {
namespace {

struct pointwise
{
    std::string name() const { return "pointwise"; }

    shape compute_shape(const std::vector<shape>& inputs, const std::vector<module_ref>& mods) const
    {
        check_shapes cs{inputs, *this};
        cs.has_at_least(1).not_tuple().static_only().same_dims();
        if(mods.size() != 1)
            cs.fail("takes one sub-module, got " + std::to_string(mods.size()));
        const auto* m = mods.front();
        auto names    = m->get_parameter_names();
        if(names.size() != inputs.size())
            cs.fail("module " + m->name() + " takes " + std::to_string(names.size()) + " parameters, given " +
                    std::to_string(inputs.size()) + " inputs");
        auto pshapes = m->get_parameter_shapes();
        for(std::size_t i = 0; i < names.size(); i++)
        {
            const auto& ps = pshapes.at(names[i]);
            if(ps.type() != inputs[i].type() or ps.lens() != inputs[i].lens())
                cs.fail("parameter " + names[i] + " of module " + m->name() + " does not match input " +
                        std::to_string(i));
        }
        auto outs = m->get_output_shapes();
        if(outs.size() != 1 or outs.front().type() == shape::tuple_type)
            cs.fail("module " + m->name() + " must return exactly one tensor");
        if(outs.front().lens() != inputs.front().lens())
            cs.fail("module " + m->name() + " returns other lens than its inputs'");
        return {outs.front().type(), inputs.front().lens()};
    }

    argument compute(const shape& output_shape,
                     const std::vector<argument>& args,
                     const std::vector<module_ref>& mods,
                     const run_module_fn& run) const
    {
        const auto* m = mods.at(0);
        auto names    = m->get_parameter_names();
        if(names.size() != args.size())
            MIGRAPHX_THROW("pointwise: module " + m->name() + " takes " + std::to_string(names.size()) +
                           " parameters, given " + std::to_string(args.size()) + " arguments");
        std::unordered_map<std::string, argument> params;
        for(std::size_t i = 0; i < names.size(); i++)
            params.emplace(names[i], args[i]);
        auto outs = run(mods.at(0), params);
        // The inputs' lens, which are the output's: smaller than declared after a data-dependent op
        // (nonzero, ...), whose real size the sub-module's ops then follow; a broadcast input (a
        // scalar) keeps the declared size, so the smallest over the inputs.
        auto lens = output_shape.lens();
        for(const auto& a : args)
            if(a.get_shape().lens().size() == lens.size())
                for(std::size_t d = 0; d < lens.size(); d++)
                    lens[d] = std::min(lens[d], a.get_shape().lens()[d]);
        if(outs.size() != 1 or outs.front().get_shape().lens() != lens or
           outs.front().get_shape().type() != output_shape.type())
            MIGRAPHX_THROW("pointwise: module " + m->name() + " did not return one value of the output shape");
        auto r = outs.front();
        // The result must be a fresh standard buffer, never an input's (or a literal's) memory.
        bool shared = not r.get_shape().standard();
        for(const auto& a : args)
            shared = shared or a.data() == r.data();
        return shared ? r.contiguous() : r;
    }
};
MIGRAPHX_REGISTER_OP(pointwise)

} // namespace
} // namespace op
} // namespace migraphx
