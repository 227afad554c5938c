// RNN, GRU and LSTM nodes as the rnn, gru and lstm ops.

#include "onnx/onnx_utils.hpp"
#include <cctype>
#include <map>
#include <sstream>

namespace migraphx {
namespace onnx {

namespace {

/// ONNX's activations attribute (with activation_alpha / activation_beta) as the ops' strings:
/// "Sigmoid" -> "sigmoid", "LeakyRelu" with alpha 0.1 -> "leakyrelu(0.1)". Empty when absent
/// (the op's defaults).
std::vector<std::string> activations(const node_info& info, std::size_t per_dir, std::size_t dirs)
{
    std::vector<std::string> r;
    if(not info.has("activations"))
        return r;
    auto alphas = info.get_floats("activation_alpha");
    auto betas  = info.get_floats("activation_beta");
    std::size_t ai = 0, bi = 0;
    for(const auto& s : info.attributes.at("activations")->strings())
    {
        std::string n;
        for(char ch : s)
            n += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        static const std::map<std::string, int> params = {{"leakyrelu", 1}, {"thresholdedrelu", 1}, {"elu", 1},
                                                          {"scaledtanh", 2}, {"hardsigmoid", 2}, {"affine", 2}};
        auto it = params.find(n);
        if(it != params.end() and ai < alphas.size())
        {
            std::ostringstream os;
            os.precision(9); // a float's every digit: strtod reads back the same value
            os << n << "(" << alphas[ai++];
            if(it->second == 2 and bi < betas.size())
                os << "," << betas[bi++];
            os << ")";
            n = os.str();
        }
        r.push_back(n);
    }
    if(r.size() != per_dir * dirs)
        info.fail("expects " + std::to_string(per_dir * dirs) + " activations, got " + std::to_string(r.size()));
    return r;
}

/// RNN, GRU and LSTM as the rnn, gru and lstm ops (the targets unroll them or run a kernel:
/// passes/rewrite_rnn.hpp); layout 1 is transposed to and from the ops' layout 0.
std::vector<instruction_ref> parse_rnn(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() < 3)
        info.fail("expects at least 3 inputs (X, W, R)");
    const auto& op = info.op_type;
    std::size_t gates = op == "RNN" ? 1 : op == "GRU" ? 3 : 4;
    auto x      = args[0];
    bool layout = info.get_int("layout", 0) != 0;
    if(rank_of(x) != 3)
        info.fail("X must have rank 3");
    if(layout)
        x = info.add("transpose", {{"permutation", std::vector<std::int64_t>{1, 0, 2}}}, {x});
    auto t     = type_of(x);
    auto seq   = lens_of(x)[0];
    auto batch = lens_of(x)[1];
    if(seq == 0)
        info.fail("X has an empty sequence");
    auto direction = info.get_string("direction", "forward");
    if(direction != "forward" and direction != "reverse" and direction != "bidirectional")
        info.fail("direction must be forward, reverse or bidirectional, got '" + direction + "'");
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
    value attrs = {{"hidden_size", h},
                   {"direction", direction},
                   {"actv_funcs", activations(info, op == "RNN" ? 1 : op == "GRU" ? 2 : 3, dirs)}};
    if(info.has("clip"))
    {
        auto clip = info.get_float("clip", 0);
        if(not(clip > 0))
            info.fail("clip must be positive, got " + std::to_string(clip));
        attrs["clip"] = clip;
    }
    if(op == "GRU")
        attrs["linear_before_reset"] = info.get_int("linear_before_reset", 0);
    if(op == "LSTM")
        attrs["input_forget"] = info.get_int("input_forget", 0);

    // The op's inputs: absent ones at the end are left off, an absent one before a present one
    // becomes its default (docs/internal/op-conventions.md).
    std::vector<instruction_ref> in{x, args[1], args[2]};
    std::size_t last = 2;
    for(std::size_t i = 3; i < args.size() and i < (op == "LSTM" ? 8u : 6u); i++)
        if(not info.is_undefined(args[i]) and args[i]->get_shape().elements() > 0)
            last = i;
    for(std::size_t i = 3; i <= last; i++)
    {
        bool given = not info.is_undefined(args[i]) and args[i]->get_shape().elements() > 0;
        if(given and layout and (i == 5 or i == 6))
            in.push_back(info.add("transpose", {{"permutation", std::vector<std::int64_t>{1, 0, 2}}}, {args[i]}));
        else if(given)
            in.push_back(args[i]);
        else if(i == 4)
            in.push_back(info.add_literal(
                literal{shape{shape::int32_type, {batch}}, std::vector<std::int32_t>(batch, static_cast<std::int32_t>(seq))}));
        else
        {
            std::vector<std::size_t> lens = i == 3 ? std::vector<std::size_t>{dirs, 2 * gates * h}
                                            : i == 7 ? std::vector<std::size_t>{dirs, 3 * h}
                                                     : std::vector<std::size_t>{dirs, batch, h};
            in.push_back(info.add_literal(literal{argument{shape{t, lens}}}));
        }
    }
    auto rnn = info.add(op == "RNN" ? "rnn" : op == "GRU" ? "gru" : "lstm", attrs, in);
    std::vector<instruction_ref> outs;
    for(std::size_t i = 0; i < (op == "LSTM" ? 3u : 2u); i++)
        outs.push_back(info.add("get_tuple_elem", {{"index", i}}, {rnn}));
    if(layout)
    {
        outs[0] = info.add("transpose", {{"permutation", std::vector<std::int64_t>{2, 0, 1, 3}}}, {outs[0]});
        for(std::size_t i = 1; i < outs.size(); i++)
            outs[i] = info.add("transpose", {{"permutation", std::vector<std::int64_t>{1, 0, 2}}}, {outs[i]});
    }
    return outs;
}
MIGRAPHX_ONNX_PARSER(parse_rnn, "RNN", "GRU", "LSTM")

} // namespace
} // namespace onnx
} // namespace migraphx
