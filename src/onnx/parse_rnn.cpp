// RNN, GRU and LSTM, unrolled over the (static) sequence: the input projection is one dot for
// the whole sequence, then each step adds the recurrent dot and applies the gates.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

struct activation
{
    std::string name;
    float alpha = 0, beta = 0;
};

instruction_ref apply(const node_info& info, const activation& a, instruction_ref x)
{
    auto t  = type_of(x);
    auto sc = [&](double v) { return info.add_scalar(v, t); };
    const auto& n = a.name;
    if(n == "Sigmoid")
        return info.add("sigmoid", {x});
    if(n == "Tanh")
        return info.add("tanh", {x});
    if(n == "Relu")
        return info.add("relu", {x});
    if(n == "Softsign")
        return info.add("softsign", {x});
    if(n == "Softplus")
        return info.add("softplus", {x});
    if(n == "LeakyRelu")
        return info.add("leaky_relu", {{"alpha", a.alpha}}, {x});
    if(n == "ThresholdedRelu")
        return info.add("thresholdedrelu", {{"alpha", a.alpha}}, {x});
    if(n == "Elu")
        return info.add("elu", {{"alpha", a.alpha}}, {x});
    if(n == "HardSigmoid")
        return info.add("hardsigmoid", {{"alpha", a.alpha}, {"beta", a.beta}}, {x});
    if(n == "Affine")
        return info.add_broadcastable_binary_op("add", info.add_broadcastable_binary_op("mul", x, sc(a.alpha)),
                                                sc(a.beta));
    if(n == "ScaledTanh")
        return info.add_broadcastable_binary_op(
            "mul", info.add("tanh", {info.add_broadcastable_binary_op("mul", x, sc(a.beta))}), sc(a.alpha));
    info.fail("unknown activation '" + n + "'");
}

/// The activations of each direction (defaults repeated for a second direction).
std::vector<activation> activations(const node_info& info, std::vector<std::string> defaults, std::size_t dirs)
{
    std::vector<activation> r;
    if(info.has("activations"))
    {
        const auto* a = info.attributes.at("activations");
        for(const auto& s : a->strings())
            r.push_back({s});
    }
    else
        for(std::size_t d = 0; d < dirs; d++)
            for(const auto& s : defaults)
                r.push_back({s});
    auto alphas = info.get_floats("activation_alpha");
    auto betas  = info.get_floats("activation_beta");
    std::size_t ai = 0, bi = 0;
    for(auto& a : r)
    {
        static const std::map<std::string, std::pair<float, float>> dflt = {
            {"LeakyRelu", {0.01f, 0}}, {"ThresholdedRelu", {1, 0}}, {"ScaledTanh", {1, 1}},
            {"HardSigmoid", {0.2f, 0.5f}}, {"Elu", {1, 0}}, {"Affine", {1, 0}}};
        auto it = dflt.find(a.name);
        if(it == dflt.end())
            continue;
        a.alpha = ai < alphas.size() ? alphas[ai++] : it->second.first;
        if(a.name == "ScaledTanh" or a.name == "HardSigmoid" or a.name == "Affine")
            a.beta = bi < betas.size() ? betas[bi++] : it->second.second;
    }
    if(r.size() != defaults.size() * dirs)
        info.fail("expects " + std::to_string(defaults.size() * dirs) + " activations");
    return r;
}

instruction_ref chunk(const node_info& info, instruction_ref x, std::size_t i, std::size_t h, std::int64_t axis = 1)
{
    auto s = static_cast<std::int64_t>(i * h);
    return info.add("slice",
                    {{"axes", std::vector<std::int64_t>{axis}},
                     {"starts", std::vector<std::int64_t>{s}},
                     {"ends", std::vector<std::int64_t>{s + static_cast<std::int64_t>(h)}}},
                    {x});
}

instruction_ref take(const node_info& info, instruction_ref x, std::size_t d)
{
    auto s = info.add("slice",
                      {{"axes", std::vector<std::int64_t>{0}},
                       {"starts", std::vector<std::int64_t>{static_cast<std::int64_t>(d)}},
                       {"ends", std::vector<std::int64_t>{static_cast<std::int64_t>(d + 1)}}},
                      {x});
    return info.add("squeeze", {{"axes", std::vector<std::int64_t>{0}}}, {s});
}

instruction_ref transpose2(const node_info& info, instruction_ref x)
{
    return info.add("transpose", {{"permutation", std::vector<std::int64_t>{1, 0}}}, {x});
}

std::vector<instruction_ref> parse_rnn(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 3)
        info.fail("expects at least 3 inputs (X, W, R)");
    const auto& op = info.op_type;
    std::size_t gates = op == "RNN" ? 1 : op == "GRU" ? 3 : 4;
    auto opt = [&](std::size_t i) -> std::optional<instruction_ref> {
        if(args.size() <= i or info.is_undefined(args[i]))
            return std::nullopt;
        return args[i];
    };
    auto x      = args[0];
    bool layout = info.get_int("layout", 0) != 0;
    if(layout)
        x = info.add("transpose", {{"permutation", std::vector<std::int64_t>{1, 0, 2}}}, {x});
    if(rank_of(x) != 3)
        info.fail("X must have rank 3");
    auto t         = type_of(x);
    auto seq       = lens_of(x)[0];
    if(seq > 4096)
        info.fail("sequences longer than 4096 are not unrolled");
    auto batch     = lens_of(x)[1];
    auto direction = info.get_string("direction", "forward");
    std::size_t dirs = direction == "bidirectional" ? 2 : 1;
    if(rank_of(args[1]) != 3 or rank_of(args[2]) != 3)
        info.fail("W and R must have rank 3");
    auto hs = info.get_int("hidden_size", static_cast<std::int64_t>(lens_of(args[2])[2]));
    if(hs <= 0 or hs > (1 << 20))
        info.fail("hidden_size " + std::to_string(hs) + " is out of range (1 to 2^20)");
    auto h = static_cast<std::size_t>(hs);
    if(lens_of(args[1]) != std::vector<std::size_t>{dirs, gates * h, lens_of(x)[2]} or
       lens_of(args[2]) != std::vector<std::size_t>{dirs, gates * h, h})
        info.fail("W and R must be {num_directions, " + std::to_string(gates) + " * hidden_size, input_size} and {"
                  "num_directions, " + std::to_string(gates) + " * hidden_size, hidden_size}");
    if(auto sl = opt(4))
    {
        auto lv = info.require_constant(*sl, "sequence_lens").to_vector<std::int64_t>();
        if(std::any_of(lv.begin(), lv.end(), [&](auto l) { return static_cast<std::size_t>(l) != seq; }))
            info.fail("sequence_lens shorter than the sequence are not supported");
    }
    std::vector<std::string> dflt = op == "RNN" ? std::vector<std::string>{"Tanh"}
                                    : op == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                  : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    auto acts = activations(info, dflt, dirs);
    std::optional<float> clip;
    if(info.has("clip"))
        clip = info.get_float("clip", 0);
    bool lbr          = info.get_int("linear_before_reset", 0) != 0;
    bool input_forget = info.get_int("input_forget", 0) != 0;
    auto init_h = opt(5);
    auto init_c = opt(6);
    auto peep   = opt(7);
    auto zeros  = info.broadcast_to(info.add_scalar(0, t), {batch, h});
    auto xs2    = reshape_to(info, x, {seq * batch, lens_of(x)[2]});

    std::vector<instruction_ref> ys(dirs), yh(dirs), yc(dirs);
    for(std::size_t d = 0; d < dirs; d++)
    {
        bool reverse = direction == "reverse" or d == 1;
        const auto* a = &acts[d * dflt.size()];
        auto wt = transpose2(info, take(info, args[1], d)); // {in, G*h}
        auto rt = transpose2(info, take(info, args[2], d)); // {h, G*h}
        auto xw = info.add("dot", {xs2, wt});
        std::optional<instruction_ref> rbh; // GRU's recurrent bias of the h gate when applied after R
        if(auto b = opt(3))
        {
            auto bd = take(info, *b, d);
            auto wb = chunk(info, bd, 0, gates * h, 0);
            auto rb = chunk(info, bd, 1, gates * h, 0);
            if(op == "GRU" and lbr)
            {
                // The h gate's recurrent bias goes inside r * (H R + Rb).
                rbh = chunk(info, rb, 2, h, 0);
                auto zr = info.add("concat", {{"axis", 0}},
                                   {chunk(info, rb, 0, 2 * h, 0), info.broadcast_to(info.add_scalar(0, t), {h})});
                rb = zr;
            }
            xw = info.add_broadcastable_binary_op("add", xw, info.add("add", {wb, rb}));
        }
        xw = reshape_to(info, xw, {seq, batch, gates * h});
        auto hprev = init_h ? take(info, *init_h, d) : zeros;
        auto cprev = init_c ? take(info, *init_c, d) : zeros;
        std::vector<instruction_ref> pv;
        if(peep)
            for(std::size_t i = 0; i < 3; i++)
                pv.push_back(chunk(info, take(info, *peep, d), i, h, 0));
        std::vector<instruction_ref> outs(seq);
        for(std::size_t s = 0; s < seq; s++)
        {
            auto ti   = reverse ? seq - 1 - s : s;
            auto xt   = take(info, chunk(info, xw, ti, 1, 0), 0);
            auto g    = [&](std::size_t i) { return chunk(info, xt, i, h); };
            auto clipped = [&](instruction_ref v) {
                if(not clip)
                    return v;
                return info.add_common_op("clip", {v, info.add_scalar(-*clip, t), info.add_scalar(*clip, t)});
            };
            if(op == "RNN")
            {
                auto pre = info.add("add", {xt, info.add("dot", {hprev, rt})});
                hprev    = apply(info, a[0], clipped(pre));
            }
            else if(op == "GRU")
            {
                auto rz = info.add("dot", {hprev, chunk(info, rt, 0, 2 * h)});
                auto z  = apply(info, a[0], clipped(info.add("add", {g(0), chunk(info, rz, 0, h)})));
                auto r  = apply(info, a[0], clipped(info.add("add", {g(1), chunk(info, rz, 1, h)})));
                auto rh = chunk(info, rt, 2, h);
                instruction_ref hh;
                if(lbr)
                {
                    auto hr = info.add("dot", {hprev, rh});
                    if(rbh)
                        hr = info.add_broadcastable_binary_op("add", hr, *rbh);
                    hh = info.add("add", {g(2), info.add("mul", {r, hr})});
                }
                else
                    hh = info.add("add", {g(2), info.add("dot", {info.add("mul", {r, hprev}), rh})});
                hh       = apply(info, a[1], clipped(hh));
                auto one = info.broadcast_to(info.add_scalar(1, t), {batch, h});
                hprev    = info.add("add", {info.add("mul", {info.add("sub", {one, z}), hh}), info.add("mul", {z, hprev})});
            }
            else
            {
                auto gates_t = info.add("add", {xt, info.add("dot", {hprev, rt})});
                auto gl      = [&](std::size_t i) { return chunk(info, gates_t, i, h); };
                auto peep_of = [&](instruction_ref v, std::size_t i, instruction_ref c) {
                    return peep ? info.add("add", {v, info.add_broadcastable_binary_op("mul", pv[i], c)}) : v;
                };
                auto it = apply(info, a[0], clipped(peep_of(gl(0), 0, cprev)));
                auto ft = apply(info, a[0], clipped(peep_of(gl(2), 2, cprev)));
                if(input_forget)
                    ft = info.add("sub", {info.broadcast_to(info.add_scalar(1, t), {batch, h}), it});
                auto ct = apply(info, a[1], clipped(gl(3)));
                cprev   = info.add("add", {info.add("mul", {ft, cprev}), info.add("mul", {it, ct})});
                auto ot = apply(info, a[0], clipped(peep_of(gl(1), 1, cprev)));
                hprev   = info.add("mul", {ot, apply(info, a[2], cprev)});
            }
            outs[ti] = hprev;
        }
        std::vector<instruction_ref> us;
        for(auto o : outs)
            us.push_back(info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{0, 1}}}, {o}));
        ys[d] = us.size() == 1 ? us[0] : info.add("concat", {{"axis", 0}}, us);
        yh[d] = info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{0}}}, {hprev});
        yc[d] = info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{0}}}, {cprev});
    }
    auto cat = [&](const std::vector<instruction_ref>& v, std::int64_t axis) {
        return v.size() == 1 ? v[0] : info.add("concat", {{"axis", axis}}, v);
    };
    auto y  = cat(ys, 1); // {seq, dirs, batch, h}
    auto hy = cat(yh, 0); // {dirs, batch, h}
    auto cy = cat(yc, 0);
    if(layout)
    {
        y  = info.add("transpose", {{"permutation", std::vector<std::int64_t>{2, 0, 1, 3}}}, {y});
        hy = info.add("transpose", {{"permutation", std::vector<std::int64_t>{1, 0, 2}}}, {hy});
        cy = info.add("transpose", {{"permutation", std::vector<std::int64_t>{1, 0, 2}}}, {cy});
    }
    if(op == "LSTM")
        return {y, hy, cy};
    return {y, hy};
}
MIGRAPHX_ONNX_PARSER(parse_rnn, "RNN", "GRU", "LSTM")

} // namespace
} // namespace onnx
} // namespace migraphx
