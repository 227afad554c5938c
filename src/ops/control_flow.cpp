// Ops that own sub-modules (full conventions: docs/internal/op-conventions.md).
//
// if(cond) with module_args {then_mod, else_mod}
//   cond: a one-element tensor (any type; nonzero is true). The sub-modules take no parameters:
//   they read outer-scope instructions directly. Result: the then-module's output shape; a tuple
//   when the modules return several values. Both modules must return the same shapes.
//
// loop[max_iterations=10](trip_count, cond, v_1..v_N) with module_args {body}
//   trip_count: one-element integer tensor; a negative value means "no limit".
//   cond: one-element tensor, nonzero = run the first iteration.
//   body parameters, in the order the parser adds them (names are free; their order is what
//   counts): iteration_num (one element, int64, 0-based), cond_in (one element, bool),
//   then one per carried value v_1..v_N, with v_i's shape.
//   body returns: cond_out, v_1'..v_N' (same shapes as v_i), then K scan outputs s_1..s_K.
//   Result: v_1..v_N final values, then s_1..s_K stacked along a new axis 0; a tuple when N+K > 1.
//   compute_shape gives scan outputs max_iterations rows; compute returns the actual number of
//   iterations (attribute "dynamic_output"). Running more than max_iterations iterations
//   throws, so a parser that knows the trip count should pass it as max_iterations.
#include <migraphx/module.hpp>
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <cstring>

namespace migraphx {
namespace op {
namespace {

shape pack(const std::vector<shape>& shapes)
{
    return shapes.size() == 1 ? shapes.front() : shape{shapes};
}

argument pack(const std::vector<argument>& args)
{
    return args.size() == 1 ? args.front() : argument{args};
}

bool truth(const argument& a, const std::string& what)
{
    if(a.get_shape().type() == shape::tuple_type or a.get_shape().elements() != 1)
        MIGRAPHX_THROW(what + " must hold exactly one element");
    return a.at<double>() != 0.0;
}

/// A one-element argument of parameter shape s holding x.
argument scalar_like(const shape& s, double x)
{
    argument r{s.as_standard()};
    s.visit_type([&](auto as) {
        using T                           = typename decltype(as)::type;
        *reinterpret_cast<T*>(r.data()) = static_cast<T>(x);
    });
    return r;
}

} // namespace

struct if_op
{
    std::string name() const { return "if"; }

    shape compute_shape(const std::vector<shape>& inputs, const std::vector<module_ref>& mods) const
    {
        check_shapes cs{inputs, name()};
        cs.has(1).not_tuple();
        if(inputs[0].elements() != 1)
            cs.fail("cond must hold exactly one element");
        if(mods.size() != 2)
            cs.fail("takes two sub-modules (then, else), got " + std::to_string(mods.size()));
        auto then_s = mods[0]->get_output_shapes();
        auto else_s = mods[1]->get_output_shapes();
        if(then_s.empty())
            cs.fail("module " + mods[0]->name() + " returns nothing");
        if(then_s.size() != else_s.size())
            cs.fail("modules " + mods[0]->name() + " and " + mods[1]->name() + " return different numbers of values");
        for(std::size_t i = 0; i < then_s.size(); i++)
            if(then_s[i].type() != else_s[i].type() or then_s[i].lens() != else_s[i].lens())
                cs.fail("output " + std::to_string(i) + " of " + mods[0]->name() + " and " + mods[1]->name() +
                        " differ in shape");
        for(auto& s : then_s)
            s = s.type() == shape::tuple_type ? s : shape{s.type(), s.lens()};
        return pack(then_s);
    }

    argument compute(const shape&,
                     const std::vector<argument>& args,
                     const std::vector<module_ref>& mods,
                     const run_module_fn& run) const
    {
        auto m    = mods.at(truth(args.at(0), "if: cond") ? 0 : 1);
        auto outs = run(m, {});
        for(auto& o : outs)
            if(o.get_shape().type() != shape::tuple_type and not o.get_shape().standard())
                o = o.contiguous(); // compute_shape promised standard layouts
        return pack(outs);
    }
};
MIGRAPHX_REGISTER_OP(if_op)

struct loop
{
    std::int64_t max_iterations = 10;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.max_iterations, "max_iterations");
    }
    std::string name() const { return "loop"; }
    value attributes() const { return {{"dynamic_output", true}}; }

    shape compute_shape(const std::vector<shape>& inputs, const std::vector<module_ref>& mods) const
    {
        check_shapes cs{inputs, name()};
        cs.has_at_least(2).not_tuple().static_only();
        if(max_iterations < 0)
            cs.fail("max_iterations must not be negative");
        if(inputs[0].elements() != 1 or not shape::is_integral(inputs[0].type()))
            cs.fail("trip_count must be a one-element integer tensor");
        if(inputs[1].elements() != 1)
            cs.fail("cond must hold exactly one element");
        if(mods.size() != 1)
            cs.fail("takes one sub-module (the body), got " + std::to_string(mods.size()));
        const auto* body = mods[0];
        std::size_t n    = inputs.size() - 2;
        if(body->get_parameter_names().size() != n + 2)
            cs.fail("body " + body->name() + " must take " + std::to_string(n + 2) +
                    " parameters (iteration_num, cond_in, carried values)");
        auto pshapes = body->get_parameter_shapes();
        auto pnames  = body->get_parameter_names();
        for(std::size_t i = 0; i < 2; i++)
            if(pshapes.at(pnames[i]).elements() != 1 or pshapes.at(pnames[i]).type() == shape::tuple_type)
                cs.fail("body parameter " + pnames[i] + " (iteration_num / cond_in) must hold one element");
        auto outs = body->get_output_shapes();
        if(outs.size() < n + 1)
            cs.fail("body " + body->name() + " must return cond and the " + std::to_string(n) + " carried values");
        if(outs[0].elements() != 1)
            cs.fail("body's first output (cond) must hold exactly one element");
        std::vector<shape> result;
        for(std::size_t i = 0; i < n; i++)
        {
            const auto& o = outs[i + 1];
            if(o.type() != inputs[i + 2].type() or o.lens() != inputs[i + 2].lens())
                cs.fail("carried value " + std::to_string(i) + " changes shape in the body");
            result.push_back(shape{o.type(), o.lens()});
        }
        for(std::size_t i = n + 1; i < outs.size(); i++)
        {
            auto lens = outs[i].lens();
            lens.insert(lens.begin(), static_cast<std::size_t>(max_iterations));
            result.push_back(shape{outs[i].type(), lens});
        }
        if(result.empty())
            cs.fail("has no outputs");
        return pack(result);
    }

    argument compute(const shape&,
                     const std::vector<argument>& args,
                     const std::vector<module_ref>& mods,
                     const run_module_fn& run) const
    {
        module_ref body = mods.at(0);
        auto pnames     = body->get_parameter_names();
        auto pshapes    = body->get_parameter_shapes();
        auto out_shapes = body->get_output_shapes();
        std::size_t n   = args.size() - 2;
        auto trip       = args[0].at<std::int64_t>();
        bool cond       = truth(args[1], "loop: cond");
        std::vector<argument> carried(args.begin() + 2, args.end());
        std::vector<std::vector<argument>> scans;
        std::int64_t iter = 0;
        for(; (trip < 0 or iter < trip) and cond; iter++)
        {
            if(iter >= max_iterations)
                MIGRAPHX_THROW("loop: more than max_iterations=" + std::to_string(max_iterations) +
                               " iterations; raise max_iterations");
            std::unordered_map<std::string, argument> params;
            params[pnames[0]] = scalar_like(pshapes.at(pnames[0]), static_cast<double>(iter));
            params[pnames[1]] = scalar_like(pshapes.at(pnames[1]), 1.0);
            for(std::size_t i = 0; i < n; i++)
                params[pnames[i + 2]] = carried[i];
            auto outs = run(body, params);
            if(outs.size() < n + 1)
                MIGRAPHX_THROW("loop: body " + body->name() + " returned too few values");
            cond = truth(outs[0], "loop: body's cond output");
            for(std::size_t i = 0; i < n; i++)
                carried[i] = outs[i + 1].contiguous(); // own the memory: the body's results are reused
            if(scans.empty())
                scans.resize(outs.size() - n - 1);
            for(std::size_t k = 0; k < scans.size(); k++)
            {
                if(outs[n + 1 + k].get_shape().lens() != out_shapes[n + 1 + k].lens())
                    MIGRAPHX_THROW("loop: scan output " + std::to_string(k) + " changes shape between iterations");
                scans[k].push_back(outs[n + 1 + k].contiguous());
            }
        }
        std::vector<argument> result = carried;
        for(auto& r : result)
            if(not r.get_shape().standard())
                r = r.contiguous(); // compute_shape promised standard layouts
        for(std::size_t k = 0; k + n + 1 < out_shapes.size(); k++)
        {
            const auto& es = out_shapes[n + 1 + k];
            auto lens      = es.lens();
            lens.insert(lens.begin(), static_cast<std::size_t>(iter));
            argument stacked{shape{es.type(), lens}};
            auto bytes = es.elements() * es.type_size();
            for(std::size_t j = 0; k < scans.size() and j < scans[k].size(); j++)
                std::memcpy(stacked.data() + j * bytes, scans[k][j].data(), bytes);
            result.push_back(stacked);
        }
        return pack(result);
    }
};
MIGRAPHX_REGISTER_OP(loop)

} // namespace op
} // namespace migraphx
