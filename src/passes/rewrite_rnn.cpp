// rewrite_rnn: the recurrence of rnn, gru and lstm unrolled into dots and elementwise ops. The
// op's semantics (inputs, gate order, activations): ops/rnn_common.hpp and the ops' own files.
#include "passes/rewrite_rnn.hpp"
#include "ops/broadcast_lens.hpp"
#include "ops/rnn_common.hpp"
#include "passes/constant_values.hpp"
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <optional>
#include <vector>

namespace migraphx {

namespace {

constexpr std::size_t max_unrolled_steps = 4096;

/// Adds instructions before pos (the op being replaced).
struct builder
{
    module& m;
    instruction_ref pos;

    instruction_ref add(const std::string& name, std::vector<instruction_ref> args) const
    {
        return m.insert_instruction(pos, make_op(name), std::move(args));
    }
    instruction_ref add(const std::string& name, const value& attrs, std::vector<instruction_ref> args) const
    {
        return m.insert_instruction(pos, make_op(name, attrs), std::move(args));
    }
    instruction_ref scalar(double x, shape::type_t t) const
    {
        return m.insert_literal(pos, literal{shape{t}, std::vector<double>{x}});
    }
    instruction_ref broadcast_to(instruction_ref x, const std::vector<std::size_t>& lens) const
    {
        if(x->get_shape().lens() == lens)
            return x;
        return add("multibroadcast", {{"out_lens", lens}}, {x});
    }
    /// The op on its inputs broadcast to their common lens (numpy's rule).
    instruction_ref common(const std::string& name, std::vector<instruction_ref> args) const
    {
        auto lens = args.front()->get_shape().lens();
        for(auto a : args)
            lens = compute_broadcasted_lens(lens, a->get_shape().lens());
        for(auto& a : args)
            a = broadcast_to(a, lens);
        return add(name, std::move(args));
    }
    instruction_ref reshape_to(instruction_ref x, const std::vector<std::size_t>& lens) const
    {
        if(x->get_shape().lens() == lens)
            return x;
        if(not x->get_shape().standard())
            x = add("contiguous", {x});
        return add("reshape", {{"dims", std::vector<std::int64_t>(lens.begin(), lens.end())}}, {x});
    }
    /// Columns [i*h, (i+1)*h) of x along axis.
    instruction_ref chunk(instruction_ref x, std::size_t i, std::size_t h, std::int64_t axis = 1) const
    {
        auto s = static_cast<std::int64_t>(i * h);
        return add("slice",
                   {{"axes", std::vector<std::int64_t>{axis}},
                    {"starts", std::vector<std::int64_t>{s}},
                    {"ends", std::vector<std::int64_t>{s + static_cast<std::int64_t>(h)}}},
                   {x});
    }
    /// x[d] without its first dim.
    instruction_ref take(instruction_ref x, std::size_t d) const
    {
        return add("squeeze", {{"axes", std::vector<std::int64_t>{0}}}, {chunk(x, d, 1, 0)});
    }
    instruction_ref transpose2(instruction_ref x) const
    {
        return add("transpose", {{"permutation", std::vector<std::int64_t>{1, 0}}}, {x});
    }

    instruction_ref apply(const op::rnn_detail::activation& a, instruction_ref x) const
    {
        auto t        = x->get_shape().type();
        const auto& n = a.fname;
        if(n == "sigmoid" or n == "tanh" or n == "relu" or n == "softsign" or n == "softplus")
            return add(n, {x});
        if(n == "leakyrelu")
            return add("leaky_relu", {{"alpha", a.alpha}}, {x});
        if(n == "thresholdedrelu" or n == "elu")
            return add(n, {{"alpha", a.alpha}}, {x});
        if(n == "hardsigmoid")
            return add("hardsigmoid", {{"alpha", a.alpha}, {"beta", a.beta}}, {x});
        if(n == "affine")
            return common("add", {common("mul", {x, scalar(a.alpha, t)}), scalar(a.beta, t)});
        // scaledtanh (rnn_detail::parse_activation accepts no other name)
        return common("mul", {add("tanh", {common("mul", {x, scalar(a.beta, t)})}), scalar(a.alpha, t)});
    }
};

struct rnn_attrs
{
    std::string op;
    std::size_t hidden = 0, gates = 1, dirs = 1;
    std::string direction;
    float clip              = 0;
    bool linear_before_reset = false, input_forget = false;
    std::vector<op::rnn_detail::activation> acts; // dirs * (activations of one direction)
    std::size_t acts_per_dir = 1;
};

rnn_attrs attrs_of(instruction_ref ins)
{
    rnn_attrs r;
    r.op     = ins->name();
    auto v   = ins->get_operator().to_value();
    r.hidden = v.at("hidden_size").to<std::size_t>();
    r.direction = v.at("direction").get_string();
    r.dirs      = op::rnn_detail::direction_count(r.direction, r.op);
    r.clip      = v.at("clip").to<float>();
    std::vector<std::string> dflt{"tanh"};
    if(r.op == "gru")
    {
        r.gates              = 3;
        r.linear_before_reset = v.at("linear_before_reset").to<std::int64_t>() != 0;
        dflt                 = {"sigmoid", "tanh"};
    }
    else if(r.op == "lstm")
    {
        r.gates        = 4;
        r.input_forget = v.at("input_forget").to<std::int64_t>() != 0;
        dflt           = {"sigmoid", "tanh", "tanh"};
    }
    r.acts_per_dir = dflt.size();
    r.acts         = op::rnn_detail::activations(v.at("actv_funcs").to_vector<std::string>(), dflt, r.dirs, r.op);
    return r;
}

std::optional<instruction_ref> input(instruction_ref ins, std::size_t i)
{
    const auto& in = ins->inputs();
    if(in.size() <= i or in[i]->get_shape().elements() == 0)
        return std::nullopt;
    return in[i];
}

/// The unrolled outputs: Y {seq, dirs, batch, h}, Y_h and Y_c {dirs, batch, h}.
std::vector<instruction_ref> unroll(const builder& b, instruction_ref ins, const rnn_attrs& a)
{
    auto x     = ins->inputs()[0];
    auto t     = x->get_shape().type();
    auto seq   = x->get_shape().lens()[0];
    auto batch = x->get_shape().lens()[1];
    auto h     = a.hidden;
    auto G     = a.gates;
    auto w     = ins->inputs()[1];
    auto r     = ins->inputs()[2];
    auto bias  = input(ins, 3);
    auto init_h = input(ins, 5);
    auto init_c = input(ins, 6);
    auto peep   = input(ins, 7);
    auto zeros  = b.broadcast_to(b.scalar(0, t), {batch, h});
    auto xs2    = b.reshape_to(x, {seq * batch, x->get_shape().lens()[2]});

    std::vector<instruction_ref> ys(a.dirs), yh(a.dirs), yc(a.dirs);
    for(std::size_t d = 0; d < a.dirs; d++)
    {
        bool reverse  = a.direction == "reverse" or d == 1;
        const auto* f = &a.acts[d * a.acts_per_dir];
        auto wt       = b.transpose2(b.take(w, d)); // {in, G*h}
        auto rt       = b.transpose2(b.take(r, d)); // {h, G*h}
        auto xw       = b.add("dot", {xs2, wt});
        std::optional<instruction_ref> rbh; // gru's recurrent bias of the h gate when applied after R
        if(bias)
        {
            auto bd = b.take(*bias, d);
            auto wb = b.chunk(bd, 0, G * h, 0);
            auto rb = b.chunk(bd, 1, G * h, 0);
            if(a.op == "gru" and a.linear_before_reset)
            {
                // The h gate's recurrent bias goes inside r * (H R + Rb).
                rbh = b.chunk(rb, 2, h, 0);
                rb  = b.add("concat", {{"axis", 0}}, {b.chunk(rb, 0, 2 * h, 0), b.broadcast_to(b.scalar(0, t), {h})});
            }
            xw = b.common("add", {xw, b.add("add", {wb, rb})});
        }
        xw         = b.reshape_to(xw, {seq, batch, G * h});
        auto hprev = init_h ? b.take(*init_h, d) : zeros;
        auto cprev = init_c ? b.take(*init_c, d) : zeros;
        std::vector<instruction_ref> pv;
        if(peep)
            for(std::size_t i = 0; i < 3; i++)
                pv.push_back(b.chunk(b.take(*peep, d), i, h, 0));
        auto clipped = [&](instruction_ref v) {
            if(a.clip <= 0)
                return v;
            return b.common("clip", {v, b.scalar(-a.clip, t), b.scalar(a.clip, t)});
        };
        std::vector<instruction_ref> outs(seq);
        for(std::size_t s = 0; s < seq; s++)
        {
            auto ti = reverse ? seq - 1 - s : s;
            auto xt = b.take(b.chunk(xw, ti, 1, 0), 0);
            auto g  = [&](std::size_t i) { return b.chunk(xt, i, h); };
            if(a.op == "rnn")
            {
                hprev = b.apply(f[0], clipped(b.add("add", {xt, b.add("dot", {hprev, rt})})));
            }
            else if(a.op == "gru")
            {
                auto rz = b.add("dot", {hprev, b.chunk(rt, 0, 2 * h)});
                auto z  = b.apply(f[0], clipped(b.add("add", {g(0), b.chunk(rz, 0, h)})));
                auto rg = b.apply(f[0], clipped(b.add("add", {g(1), b.chunk(rz, 1, h)})));
                auto rh = b.chunk(rt, 2, h);
                instruction_ref hh;
                if(a.linear_before_reset)
                {
                    auto hr = b.add("dot", {hprev, rh});
                    if(rbh)
                        hr = b.common("add", {hr, *rbh});
                    hh = b.add("add", {g(2), b.add("mul", {rg, hr})});
                }
                else
                    hh = b.add("add", {g(2), b.add("dot", {b.add("mul", {rg, hprev}), rh})});
                hh       = b.apply(f[1], clipped(hh));
                auto one = b.broadcast_to(b.scalar(1, t), {batch, h});
                hprev    = b.add("add", {b.add("mul", {b.add("sub", {one, z}), hh}), b.add("mul", {z, hprev})});
            }
            else
            {
                auto gates_t = b.add("add", {xt, b.add("dot", {hprev, rt})});
                auto gl      = [&](std::size_t i) { return b.chunk(gates_t, i, h); };
                auto peep_of = [&](instruction_ref v, std::size_t i, instruction_ref c) {
                    return peep ? b.add("add", {v, b.common("mul", {pv[i], c})}) : v;
                };
                auto it = b.apply(f[0], clipped(peep_of(gl(0), 0, cprev)));
                auto ft = b.apply(f[0], clipped(peep_of(gl(2), 2, cprev)));
                if(a.input_forget)
                    ft = b.add("sub", {b.broadcast_to(b.scalar(1, t), {batch, h}), it});
                auto ct = b.apply(f[1], clipped(gl(3)));
                cprev   = b.add("add", {b.add("mul", {ft, cprev}), b.add("mul", {it, ct})});
                auto ot = b.apply(f[0], clipped(peep_of(gl(1), 1, cprev)));
                hprev   = b.add("mul", {ot, b.apply(f[2], cprev)});
            }
            outs[ti] = hprev;
        }
        std::vector<instruction_ref> us;
        for(auto o : outs)
            us.push_back(b.add("unsqueeze", {{"axes", std::vector<std::int64_t>{0, 1}}}, {o}));
        ys[d] = us.size() == 1 ? us[0] : b.add("concat", {{"axis", 0}}, us);
        yh[d] = b.add("unsqueeze", {{"axes", std::vector<std::int64_t>{0}}}, {hprev});
        yc[d] = b.add("unsqueeze", {{"axes", std::vector<std::int64_t>{0}}}, {cprev});
    }
    auto cat = [&](const std::vector<instruction_ref>& v, std::int64_t axis) {
        return v.size() == 1 ? v[0] : b.add("concat", {{"axis", axis}}, v);
    };
    return {cat(ys, 1), cat(yh, 0), cat(yc, 0)};
}

bool is_rnn(instruction_ref ins) { return ins->name() == "rnn" or ins->name() == "gru" or ins->name() == "lstm"; }

} // namespace

std::optional<std::vector<std::int64_t>> constant_sequence_lengths(instruction_ref ins)
{
    auto sl = input(ins, 4);
    if(not sl)
        return std::vector<std::int64_t>{};
    auto v = pass_utils::constant_value(*sl);
    if(not v)
        return std::nullopt;
    return v->to_vector<std::int64_t>();
}

bool read_by_elements(instruction_ref ins)
{
    return std::all_of(ins->outputs().begin(), ins->outputs().end(),
                       [](instruction_ref u) { return u->name() == "get_tuple_elem"; });
}

bool can_unroll_rnn(instruction_ref ins)
{
    if(not is_rnn(ins) or ins->inputs().empty() or ins->get_shape().type() != shape::tuple_type)
        return false;
    const auto& x = ins->inputs()[0]->get_shape();
    if(x.dynamic() or x.ndim() != 3 or x.lens()[0] > max_unrolled_steps or x.lens()[0] == 0)
        return false;
    // Rows that stop early need a mask per step; only the full length unrolls.
    auto lens = constant_sequence_lengths(ins);
    if(not lens or std::any_of(lens->begin(), lens->end(),
                               [&](auto l) { return static_cast<std::size_t>(l) != x.lens()[0]; }))
        return false;
    return read_by_elements(ins);
}

void rewrite_rnn::apply(module& m) const
{
    std::vector<instruction_ref> todo;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(is_rnn(it) and not(keep and keep(it)) and can_unroll_rnn(it))
            todo.push_back(it);
    for(auto ins : todo)
    {
        auto outs  = unroll(builder{m, ins}, ins, attrs_of(ins));
        auto users = ins->outputs(); // a copy: replacing changes the list
        for(auto u : users)
        {
            auto i = u->get_operator().to_value().at("index").to<std::size_t>();
            m.replace_instruction(u, outs.at(i));
        }
        // ins and its get_tuple_elem users are left for dead_code_elimination.
    }
}

} // namespace migraphx
