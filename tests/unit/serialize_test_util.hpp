#ifndef MIGX_TEST_SERIALIZE_TEST_UTIL_HPP
#define MIGX_TEST_SERIALIZE_TEST_UTIL_HPP

// Small programs for the .mxr tests and a bit-for-bit comparison of results.

#include <migraphx/generate.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>

namespace migx_test {

inline bool have_target(const std::string& name)
{
    auto t = migraphx::get_targets();
    return std::find(t.begin(), t.end(), name) != t.end();
}

inline std::string to_string(const migraphx::program& p)
{
    std::ostringstream ss;
    ss << p;
    return ss.str();
}

/// conv + bias + relu -> max pool -> flatten -> gemm -> softmax, with two named outputs:
/// exercises literals, broadcasts, oneDNN lowering, fused pointwise kernels and row kernels.
inline migraphx::program small_cnn()
{
    using migraphx::make_op;
    using migraphx::shape;
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 3, 8, 8}});
    auto w   = mm->add_literal(migraphx::generate_literal(shape{shape::float_type, {4, 3, 3, 3}}, 3));
    auto b   = mm->add_literal(migraphx::generate_literal(shape{shape::float_type, {4}}, 4));
    auto c   = mm->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
    auto bb  = mm->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", c->get_shape().lens()}}), b);
    auto r   = mm->add_instruction(make_op("relu"), mm->add_instruction(make_op("add"), c, bb));
    auto pl  = mm->add_instruction(
        make_op("pooling", {{"mode", "max"}, {"lengths", {2, 2}}, {"stride", {2, 2}}, {"padding", {0, 0}}}), r);
    auto f   = mm->add_instruction(make_op("flatten", {{"axis", 1}}), pl);
    auto fc  = mm->add_literal(migraphx::generate_literal(shape{shape::float_type, {64, 10}}, 5));
    auto d   = mm->add_instruction(make_op("dot"), f, fc);
    auto sm  = mm->add_instruction(make_op("softmax", {{"axis", 1}}), d);
    mm->add_return({sm, d});
    p.set_output_names({"prob", "logits"});
    return p;
}

/// A program whose main module has a second input and an `if` with two sub-modules.
inline migraphx::program with_submodules()
{
    using migraphx::make_op;
    using migraphx::shape;
    migraphx::program p;
    auto* mm   = p.get_main_module();
    auto cond  = mm->add_parameter("cond", shape{shape::bool_type});
    auto x     = mm->add_parameter("x", shape{shape::float_type, {2, 3}});
    auto* then = p.create_module("then_mod");
    then->add_return({then->add_instruction(make_op("exp"), x)});
    auto* els = p.create_module("else_mod");
    els->add_return({els->add_instruction(make_op("neg"), x)});
    auto r = mm->add_instruction(make_op("if"), {cond}, {then, els});
    mm->add_return({r});
    return p;
}

inline migraphx::parameter_map params_for(const migraphx::program& p)
{
    migraphx::parameter_map m;
    unsigned long seed = 11;
    for(const auto& [name, s] : p.get_inputs())
        m[name] = migraphx::generate_argument(s, seed++);
    return m;
}

/// Same shapes and the very same bytes.
inline void expect_bitwise_equal(const std::vector<migraphx::argument>& a, const std::vector<migraphx::argument>& b)
{
    ASSERT_EQ(a.size(), b.size());
    for(std::size_t i = 0; i < a.size(); i++)
    {
        auto x = a[i].contiguous();
        auto y = b[i].contiguous();
        ASSERT_EQ(x.get_shape(), y.get_shape()) << "output " << i;
        EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.get_shape().bytes())) << "output " << i << " differs";
    }
}

} // namespace migx_test

#endif
