#ifndef MIGX_TEST_RNN_TEST_UTIL_HPP
#define MIGX_TEST_RNN_TEST_UTIL_HPP

// Programs of one recurrent op (rnn, gru or lstm) for the tests of what targets make of them
// (pass_rewrite_rnn, cpu_dnnl_rnn): the op's inputs as the case asks, every output returned.

#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <cmath>
#include <string>
#include <vector>

namespace migx_test {

struct rnn_case
{
    std::string op = "lstm";
    migraphx::value attrs; // besides hidden_size
    std::size_t seq = 3, batch = 2, input = 3, hidden = 4, dirs = 1;
    bool bias = true;
    bool h0 = false, c0 = false; // initial states, as parameters "h0" and "c0" (c0: lstm only)
    bool peepholes = false;      // lstm only
    bool weights_as_params = false; // W, R, B, P as parameters "w", "r", "b", "p"
    /// sequence_lens: "none" (absent), "full" (a literal of seq), "short" (a literal whose last row
    /// is 1), "param" (parameter "lens").
    std::string lens = "none";
};

inline std::size_t rnn_gates(const std::string& op) { return op == "rnn" ? 1 : op == "gru" ? 3 : 4; }

/// Deterministic values of the given lens (a literal), or a parameter of that shape.
inline migraphx::instruction_ref
rnn_weights(migraphx::module& m, const std::string& name, std::vector<std::size_t> lens, bool param, int salt)
{
    migraphx::shape s{migraphx::shape::float_type, std::move(lens)};
    if(param)
        return m.add_parameter(name, s);
    std::vector<float> v(s.elements());
    for(std::size_t i = 0; i < v.size(); i++)
        v[i] = 0.4f * std::sin(0.37f * static_cast<float>(i) + static_cast<float>(salt));
    return m.add_literal(migraphx::literal{s, v});
}

inline migraphx::program make_rnn_program(const rnn_case& c)
{
    using migraphx::shape;
    migraphx::program p;
    auto& m   = *p.get_main_module();
    auto gh   = rnn_gates(c.op) * c.hidden;
    bool lstm = c.op == "lstm";
    bool wp   = c.weights_as_params;
    auto zeros = [&](std::vector<std::size_t> lens) {
        shape s{shape::float_type, std::move(lens)};
        return m.add_literal(migraphx::literal{s, std::vector<float>(s.elements())});
    };
    std::vector<migraphx::instruction_ref> in{m.add_parameter("x", shape{shape::float_type, {c.seq, c.batch, c.input}}),
                                              rnn_weights(m, "w", {c.dirs, gh, c.input}, wp, 1),
                                              rnn_weights(m, "r", {c.dirs, gh, c.hidden}, wp, 2)};
    // Inputs are left off from the end; one before a given input is materialised.
    std::size_t last = c.peepholes and lstm ? 7 : c.c0 and lstm ? 6 : c.h0 ? 5 : c.lens != "none" ? 4 : c.bias ? 3 : 2;
    std::vector<std::size_t> state{c.dirs, c.batch, c.hidden};
    shape ls{shape::int32_type, {c.batch}};
    std::vector<std::int32_t> lv(c.batch, static_cast<std::int32_t>(c.seq));
    if(c.lens == "short")
        lv.back() = 1;
    for(std::size_t i = 3; i <= last; i++)
    {
        if(i == 3)
            in.push_back(c.bias ? rnn_weights(m, "b", {c.dirs, 2 * gh}, wp, 3) : zeros({c.dirs, 2 * gh}));
        else if(i == 4)
            in.push_back(c.lens == "param" ? m.add_parameter("lens", ls) : m.add_literal(migraphx::literal{ls, lv}));
        else if(i == 5)
            in.push_back(c.h0 ? m.add_parameter("h0", shape{shape::float_type, state}) : zeros(state));
        else if(i == 6)
            in.push_back(c.c0 ? m.add_parameter("c0", shape{shape::float_type, state}) : zeros(state));
        else
            in.push_back(rnn_weights(m, "p", {c.dirs, 3 * c.hidden}, wp, 4));
    }
    auto attrs           = c.attrs;
    attrs["hidden_size"] = c.hidden;
    auto r               = m.add_instruction(migraphx::make_op(c.op, attrs), in);
    std::vector<migraphx::instruction_ref> outs;
    for(std::size_t i = 0; i < (lstm ? 3u : 2u); i++)
        outs.push_back(m.add_instruction(migraphx::make_op("get_tuple_elem", {{"index", i}}), r));
    m.add_return(outs);
    return p;
}

/// Generated values for every parameter of p; "lens" (sequence_lens) holds the full length.
inline migraphx::parameter_map rnn_params(const migraphx::program& p, const rnn_case& c)
{
    migraphx::parameter_map m;
    unsigned long seed = 1;
    for(const auto& [name, s] : p.get_parameter_shapes())
    {
        if(name == "lens")
        {
            migraphx::argument a{s};
            auto* v = reinterpret_cast<std::int32_t*>(a.data());
            std::fill(v, v + c.batch, static_cast<std::int32_t>(c.seq));
            m[name] = a;
        }
        else
            m[name] = migraphx::generate_argument(s, seed++);
    }
    return m;
}

} // namespace migx_test

#endif
