#ifndef MIGRAPHX_OPS_RNN_COMMON_HPP
#define MIGRAPHX_OPS_RNN_COMMON_HPP

// What rnn, gru and lstm share: input checks, activation functions, and the time loop.
// Inputs are ONNX's, in ONNX order (layout 0):
//   X {seq, batch, input}, W {dirs, G*H, input}, R {dirs, G*H, H}, B {dirs, 2*G*H},
//   sequence_lens {batch} (int32/int64), initial_h {dirs, batch, H}, [initial_c {dirs, batch, H},
//   P {dirs, 3*H}] (lstm only), with G = 1 (rnn), 3 (gru), 4 (lstm).
// X, W and R are required. Optional inputs may be left off from the end; one that is absent but
// followed by a present one is passed as a literal meaning "absent": zeros for B, initial_h,
// initial_c and P; for sequence_lens a literal holding seq for every batch row. An input whose
// shape has no elements also counts as absent. Output: tuple {Y {seq, dirs, batch, H},
// Y_h {dirs, batch, H}[, Y_c {dirs, batch, H}]} in X's type; Y is 0 past a row's sequence length.
// See docs/internal/op-conventions.md.

#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace migraphx {
namespace op {
namespace rnn_detail {

/// An ONNX RNN activation: "sigmoid", "tanh", "relu", "affine", "leakyrelu", "thresholdedrelu",
/// "scaledtanh", "hardsigmoid", "elu", "softsign", "softplus" (any case), optionally with its
/// alpha and beta in parentheses: "hardsigmoid(0.2,0.5)", "leakyrelu(0.1)".
struct activation
{
    std::string fname;
    double alpha = 0;
    double beta  = 0;

    double operator()(double x) const
    {
        if(fname == "sigmoid")
            return 1.0 / (1.0 + std::exp(-x));
        if(fname == "tanh")
            return std::tanh(x);
        if(fname == "relu")
            return std::max(0.0, x);
        if(fname == "affine")
            return alpha * x + beta;
        if(fname == "leakyrelu")
            return x < 0 ? alpha * x : x;
        if(fname == "thresholdedrelu")
            return x > alpha ? x : 0.0;
        if(fname == "scaledtanh")
            return alpha * std::tanh(beta * x);
        if(fname == "hardsigmoid")
            return std::max(0.0, std::min(1.0, alpha * x + beta));
        if(fname == "elu")
            return x < 0 ? alpha * (std::exp(x) - 1.0) : x;
        if(fname == "softsign")
            return x / (1.0 + std::abs(x));
        // softplus
        return std::log1p(std::exp(-std::abs(x))) + std::max(x, 0.0);
    }
};

inline activation parse_activation(const std::string& spec, const std::string& op)
{
    activation a;
    auto paren = spec.find('(');
    for(char ch : spec.substr(0, paren))
        if(not std::isspace(static_cast<unsigned char>(ch)))
            a.fname += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    struct def
    {
        const char* n;
        double alpha, beta;
    };
    static const def defaults[] = {{"sigmoid", 0, 0},         {"tanh", 0, 0},       {"relu", 0, 0},
                                   {"affine", 1, 0},          {"leakyrelu", 0.01, 0}, {"thresholdedrelu", 1, 0},
                                   {"scaledtanh", 1, 1},      {"hardsigmoid", 0.2, 0.5}, {"elu", 1, 0},
                                   {"softsign", 0, 0},        {"softplus", 0, 0}};
    const def* d = nullptr;
    for(const auto& x : defaults)
        if(a.fname == x.n)
            d = &x;
    if(d == nullptr)
        MIGRAPHX_THROW(op + ": unknown activation function '" + spec + "'");
    a.alpha = d->alpha;
    a.beta  = d->beta;
    if(paren != std::string::npos)
    {
        auto close = spec.find(')', paren);
        if(close == std::string::npos)
            MIGRAPHX_THROW(op + ": activation '" + spec + "' lacks a closing parenthesis");
        std::string args = spec.substr(paren + 1, close - paren - 1);
        char* end        = nullptr;
        a.alpha          = std::strtod(args.c_str(), &end);
        if(end == args.c_str())
            MIGRAPHX_THROW(op + ": activation '" + spec + "' has a malformed alpha");
        while(*end == ' ')
            ++end;
        if(*end == ',')
        {
            const char* b = end + 1;
            a.beta        = std::strtod(b, &end);
            if(end == b)
                MIGRAPHX_THROW(op + ": activation '" + spec + "' has a malformed beta");
        }
    }
    return a;
}

inline std::size_t direction_count(const std::string& direction, const std::string& op)
{
    if(direction == "forward" or direction == "reverse")
        return 1;
    if(direction == "bidirectional")
        return 2;
    MIGRAPHX_THROW(op + ": direction must be forward, reverse or bidirectional, got '" + direction + "'");
}

/// The activations per direction, flattened: dirs * defaults.size() entries. An empty list means
/// the defaults; a list for one direction is reused for the reverse one.
inline std::vector<activation> activations(const std::vector<std::string>& given,
                                           const std::vector<std::string>& defaults,
                                           std::size_t dirs,
                                           const std::string& op)
{
    std::vector<std::string> names = given.empty() ? defaults : given;
    if(names.size() == defaults.size() and dirs == 2)
    {
        auto one = names; // inserting a vector's own range into it is undefined
        names.insert(names.end(), one.begin(), one.end());
    }
    if(names.size() != defaults.size() * dirs)
        MIGRAPHX_THROW(op + ": expects " + std::to_string(defaults.size() * dirs) + " activation functions, got " +
                       std::to_string(given.size()));
    std::vector<activation> r;
    for(const auto& n : names)
        r.push_back(parse_activation(n, op));
    return r;
}

inline bool present(const std::vector<shape>& inputs, std::size_t i)
{
    return inputs.size() > i and inputs[i].elements() > 0;
}

/// Checks the inputs and returns the output tuple shape.
inline shape rnn_shape(const std::vector<shape>& inputs,
                       std::size_t hidden,
                       std::size_t gates,
                       bool lstm,
                       const std::string& direction,
                       const std::string& op)
{
    check_shapes cs{inputs, op};
    cs.has_between(3, lstm ? 8 : 6).not_tuple().static_only();
    auto dirs = direction_count(direction, op);
    if(hidden == 0)
        cs.fail("hidden_size must be positive");
    const auto& x = inputs[0];
    if(x.ndim() != 3)
        cs.fail("X must be {seq_length, batch_size, input_size}");
    if(not shape::is_floating(x.type()))
        cs.fail("X must be a floating type");
    std::size_t seq = x.lens()[0], batch = x.lens()[1], in = x.lens()[2], gh = gates * hidden;
    auto expect = [&](std::size_t i, const std::vector<std::size_t>& lens, const char* what) {
        if(not present(inputs, i))
            return;
        if(inputs[i].lens() != lens)
            cs.fail(std::string(what) + " has the wrong dimensions");
        if(i != 4 and inputs[i].type() != x.type())
            cs.fail(std::string(what) + " must have X's type");
    };
    if(inputs[1].lens() != std::vector<std::size_t>{dirs, gh, in})
        cs.fail("W must be {num_directions, " + std::to_string(gates) + "*hidden_size, input_size}");
    if(inputs[2].lens() != std::vector<std::size_t>{dirs, gh, hidden})
        cs.fail("R must be {num_directions, " + std::to_string(gates) + "*hidden_size, hidden_size}");
    expect(1, {dirs, gh, in}, "W");
    expect(2, {dirs, gh, hidden}, "R");
    expect(3, {dirs, 2 * gh}, "B");
    expect(4, {batch}, "sequence_lens");
    if(present(inputs, 4) and inputs[4].type() != shape::int32_type and inputs[4].type() != shape::int64_type)
        cs.fail("sequence_lens must be int32 or int64");
    expect(5, {dirs, batch, hidden}, "initial_h");
    expect(6, {dirs, batch, hidden}, "initial_c");
    expect(7, {dirs, 3 * hidden}, "P");
    std::vector<shape> outs{shape{x.type(), {seq, dirs, batch, hidden}}, shape{x.type(), {dirs, batch, hidden}}};
    if(lstm)
        outs.push_back(outs.back());
    return shape{outs};
}

/// The inputs as doubles, absent ones filled with their defaults.
struct rnn_data
{
    std::size_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 0, gates = 0;
    std::vector<double> x, w, r, b, h0, c0, p;
    std::vector<std::size_t> seq_lens;

    rnn_data(const std::vector<argument>& args, std::size_t h, std::size_t g, std::size_t d, const std::string& op)
        : hidden(h), dirs(d), gates(g)
    {
        const auto& xl = args[0].get_shape().lens();
        seq = xl[0], batch = xl[1], input = xl[2];
        std::vector<shape> shapes;
        for(const auto& a : args)
            shapes.push_back(a.get_shape());
        auto load = [&](std::size_t i, std::size_t n) {
            return present(shapes, i) ? args[i].to_vector<double>() : std::vector<double>(n, 0.0);
        };
        x  = args[0].to_vector<double>();
        w  = args[1].to_vector<double>();
        r  = args[2].to_vector<double>();
        b  = load(3, dirs * 2 * gates * hidden);
        h0 = load(5, dirs * batch * hidden);
        c0 = load(6, dirs * batch * hidden);
        p  = load(7, dirs * 3 * hidden);
        seq_lens.assign(batch, seq);
        if(present(shapes, 4))
        {
            auto sl = args[4].to_vector<std::int64_t>();
            for(std::size_t i = 0; i < batch; i++)
            {
                if(sl[i] < 0 or static_cast<std::size_t>(sl[i]) > seq)
                    MIGRAPHX_THROW(op + ": sequence_lens[" + std::to_string(i) + "] = " + std::to_string(sl[i]) +
                                   " is outside [0, " + std::to_string(seq) + "]");
                seq_lens[i] = static_cast<std::size_t>(sl[i]);
            }
        }
    }

    /// xw = W[d] x + Wb[d] and hr = R[d] h + Rb[d], each gates*hidden long.
    void project(std::size_t d, const double* xt, const double* h, std::vector<double>& xw, std::vector<double>& hr) const
    {
        std::size_t gh = gates * hidden;
        xw.assign(gh, 0.0);
        hr.assign(gh, 0.0);
        for(std::size_t j = 0; j < gh; j++)
        {
            double s = b[d * 2 * gh + j];
            for(std::size_t k = 0; k < input; k++)
                s += w[(d * gh + j) * input + k] * xt[k];
            xw[j] = s;
            double t = b[d * 2 * gh + gh + j];
            for(std::size_t k = 0; k < hidden; k++)
                t += r[(d * gh + j) * hidden + k] * h[k];
            hr[j] = t;
        }
    }
};

inline double clip_to(double x, float clip) { return clip > 0 ? std::max(-double(clip), std::min(double(clip), x)) : x; }

/// One time step of one batch row in direction d: updates h (and c for lstm) in place.
using step_fn = std::function<void(std::size_t d, const double* xt, std::vector<double>& h, std::vector<double>& c)>;

/// Runs every direction over every batch row (rows are independent) and packs the outputs.
inline argument run_rnn(const shape& out, const rnn_data& data, const std::string& direction, const step_fn& step)
{
    const auto& subs = out.sub_shapes();
    std::vector<std::vector<double>> res(subs.size());
    for(std::size_t i = 0; i < subs.size(); i++)
        res[i].assign(subs[i].elements(), 0.0);
    std::size_t H = data.hidden;
    for(std::size_t d = 0; d < data.dirs; d++)
    {
        bool backward = direction == "reverse" or (direction == "bidirectional" and d == 1);
        for(std::size_t bi = 0; bi < data.batch; bi++)
        {
            std::size_t hoff = (d * data.batch + bi) * H;
            std::vector<double> h(data.h0.begin() + hoff, data.h0.begin() + hoff + H);
            std::vector<double> c(data.c0.begin() + hoff, data.c0.begin() + hoff + H);
            std::size_t len = data.seq_lens[bi];
            for(std::size_t s = 0; s < len; s++)
            {
                std::size_t t = backward ? len - 1 - s : s;
                step(d, data.x.data() + (t * data.batch + bi) * data.input, h, c);
                std::copy(h.begin(), h.end(), res[0].begin() + ((t * data.dirs + d) * data.batch + bi) * H);
            }
            std::copy(h.begin(), h.end(), res[1].begin() + hoff);
            if(res.size() > 2)
                std::copy(c.begin(), c.end(), res[2].begin() + hoff);
        }
    }
    std::vector<argument> outs;
    for(std::size_t i = 0; i < subs.size(); i++)
    {
        argument a{subs[i]};
        subs[i].visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            auto* o = reinterpret_cast<T*>(a.data());
            for(std::size_t j = 0; j < res[i].size(); j++)
                o[j] = static_cast<T>(res[i][j]);
        });
        outs.push_back(a);
    }
    return argument{outs};
}

} // namespace rnn_detail
} // namespace op
} // namespace migraphx

#endif
