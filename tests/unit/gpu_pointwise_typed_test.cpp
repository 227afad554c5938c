// Generated pointwise kernels on bool and integer values (codegen.cpp's typed_expression):
// comparisons, logic, where, conversions (safe_cast) and integer arithmetic, against ref, in fp32
// and fp16, both offload modes (gpu_test_util.hpp); each case checks that nothing fell back to the
// host. The attention masks of BERT and GPT-2 exports (tools/export_transformer_like.py) close it.
// Half chains run in float (float-through, codegen.hpp): against a float reference of the chain,
// which ref's per-op rounding is not close to; ops discontinuous in a half value still see it
// rounded, as ref.
// They need a device (skipped without one); gpu_codegen_test and gpu_lowering_no_device check the
// sources and the lowering on the host.
#include "gpu_test_util.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <cstdint>
#include <limits>
#include <sstream>

using migraphx::make_op;
using migraphx::shape;

namespace {

using migx_test::text;

/// Runs p on ref and gpu (given inputs, or fresh random ones), expects no host fallback and each
/// of `kernels` among the kernels.
void check(const migraphx::program& p,
           const std::vector<std::string>& kernels,
           double tol                        = 0,
           const migraphx::parameter_map* in = nullptr)
{
    auto g = in != nullptr ? migx_test::expect_gpu_matches_ref(p, *in, tol, tol)
                           : migx_test::expect_gpu_matches_ref(p, tol, tol);
    auto t = text(g);
    EXPECT_EQ(t.find("gpu::ref::"), std::string::npos) << t;
    for(const auto& k : kernels)
        EXPECT_NE(t.find("symbol_name=" + k + ","), std::string::npos) << k << "\n" << t;
}

/// A one-element literal of type t holding v (converted), broadcast to lens.
template <class T>
migraphx::instruction_ref scalar(migraphx::module* m, shape::type_t t, T v, const std::vector<std::size_t>& lens)
{
    migraphx::literal l{shape{t}, std::vector<T>{v}};
    return m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), m->add_literal(l));
}

migraphx::instruction_ref op(migraphx::module* m, const std::string& name, std::vector<migraphx::instruction_ref> args,
                             const migraphx::value& v = {})
{
    return m->add_instruction(make_op(name, v), args);
}

migraphx::instruction_ref convert(migraphx::module* m, migraphx::instruction_ref x, shape::type_t t)
{
    return op(m, "convert", {x}, {{"target_type", t}});
}

/// The erf GELU chain of x over half, and (x + 1000) - 1000; with `in_float` the same ops on x
/// converted to float (the constants the half ones' values), converted to half at the end.
migraphx::program half_chains(bool in_float)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    std::vector<std::size_t> lens{64, 256};
    auto x  = m->add_parameter("x", shape{shape::half_type, lens});
    auto t  = in_float ? shape::float_type : shape::half_type;
    auto c  = [&](float v) {
        auto l = m->add_literal(migraphx::literal{shape{shape::half_type}, std::vector<float>{v}});
        return m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), in_float ? convert(m, l, t) : l);
    };
    auto xv   = in_float ? convert(m, x, t) : x;
    auto erf  = op(m, "erf", {op(m, "div", {xv, c(1.4142135f)})});
    auto gelu = op(m, "mul", {op(m, "mul", {xv, op(m, "add", {erf, c(1.f)})}), c(0.5f)});
    auto back = op(m, "sub", {op(m, "add", {xv, c(1000.f)}), c(1000.f)});
    if(in_float)
        m->add_return({convert(m, gelu, shape::half_type), convert(m, back, shape::half_type)});
    else
        m->add_return({gelu, back});
    return p;
}

} // namespace

TEST(gpu_pointwise_typed, half_chains_run_in_float)
{
    MIGX_REQUIRE_GPU();
    auto p  = half_chains(false);
    auto in = migx_test::fresh_params(p);
    auto fp = half_chains(true);
    fp.compile(migraphx::ref::target{});
    auto want = fp.eval(in);
    // ref rounds (x + 1000) to a multiple of 0.5: far from the float chain (the old kernels gave
    // ref's bits)
    auto rp = p;
    rp.compile(migraphx::ref::target{});
    auto per_op = rp.eval(in).at(1).to_vector<double>();
    auto exact  = want.at(1).to_vector<double>();
    std::size_t far = 0;
    for(std::size_t i = 0; i < exact.size(); i++)
        far += std::fabs(per_op[i] - exact[i]) > 1e-2 ? 1 : 0;
    EXPECT_GT(far, exact.size() / 2);
    auto g = p;
    migraphx::compile_options o;
    o.offload_copy = true;
    g.compile(migraphx::get_target("gpu"), o);
    auto t = text(g);
    EXPECT_EQ(t.find("gpu::ref::"), std::string::npos) << t;
    EXPECT_NE(t.find("symbol_name=div_erf_add_mul_mul_kernel,"), std::string::npos) << t;
    auto got = g.eval(in);
    ASSERT_EQ(got.size(), 2u);
    // within a half rounding: the device's erff and the multiplication by 1 / 1.4140625 against
    // the host's erf and division may flip the last rounding
    for(std::size_t i = 0; i < got.size(); i++)
        migx_test::expect_close(got[i], want[i], 1e-3, 1e-3, "output " + std::to_string(i));
}

TEST(gpu_pointwise_typed, half_comparisons_see_rounded_values)
{
    MIGX_REQUIRE_GPU();
    // x + 1000 in [999, 1001) rounds to a multiple of 0.5: equal to 1000 for |x| <= 0.25 (in
    // float only for x = 0); floor(x + 999) and int(x + 1001) are one more for x in [-0.25, 0)
    // than in float; the ops see the rounded value, as ref computes them (bit for bit)
    migraphx::program p;
    auto* m = p.get_main_module();
    std::vector<std::size_t> lens{32, 64};
    auto x   = m->add_parameter("x", shape{shape::half_type, lens});
    // each output its own chain (a value used twice is a kernel's output, stored as half)
    auto at  = [&](float v) { return op(m, "add", {x, scalar(m, shape::half_type, v, lens)}); };
    auto eq  = op(m, "equal", {at(1000.f), scalar(m, shape::half_type, 1000.f, lens)});
    auto fl  = op(m, "sub", {op(m, "floor", {at(999.f)}), scalar(m, shape::half_type, 999.f, lens)});
    auto ci  = convert(m, at(1001.f), shape::int32_type);
    // exp(16 x) passes 65504 (inf in half) for x > 0.69; in float it is finite
    auto big = op(m, "exp", {op(m, "mul", {x, scalar(m, shape::half_type, 16.f, lens)})});
    m->add_return({eq, fl, op(m, "isinf", {big}), ci});
    migraphx::parameter_map in;
    in["x"] = migraphx::generate_argument(shape{shape::half_type, lens}, 5);
    check(p, {"add_equal_kernel", "add_floor_sub_kernel", "mul_exp_isinf_kernel", "add_kernel"}, 0, &in);
}

TEST(gpu_pointwise_typed, comparisons_float_half_int)
{
    MIGX_REQUIRE_GPU();
    for(auto t : {shape::float_type, shape::half_type, shape::int64_type, shape::int32_type})
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        std::vector<std::size_t> lens{3, 7, 5};
        auto x  = m->add_parameter("x", shape{t, lens});
        auto y  = m->add_parameter("y", shape{t, lens});
        bool fl = t == shape::float_type or t == shape::half_type;
        // floats in [-1, 1): floor(4 x) makes equal values common
        auto a = fl ? op(m, "floor", {op(m, "mul", {x, scalar(m, t, 4.0f, lens)})}) : x;
        auto b = fl ? op(m, "floor", {op(m, "mul", {y, scalar(m, t, 4.0f, lens)})}) : y;
        auto eq = op(m, "equal", {a, b});
        auto gt = op(m, "greater", {a, b});
        auto ge = op(m, "not", {op(m, "less", {a, b})}); // the parser's GreaterOrEqual
        auto le = op(m, "not", {op(m, "greater", {x, y})});
        m->add_return({eq, gt, ge, le});
        // For integers a, b are x, y: the two greater(x, y) are one (CSE), returned itself, so
        // its `not` is a kernel of its own.
        check(p, fl ? std::vector<std::string>{"less_not_kernel", "greater_not_kernel"}
                    : std::vector<std::string>{"less_not_kernel", "greater_kernel", "not_kernel"});
    }
}

TEST(gpu_pointwise_typed, logic_on_bool_and_not_of_numbers)
{
    MIGX_REQUIRE_GPU();
    migraphx::program p;
    auto* m = p.get_main_module();
    std::vector<std::size_t> lens{4, 33};
    auto a  = m->add_parameter("a", shape{shape::bool_type, lens});
    auto b  = m->add_parameter("b", shape{shape::bool_type, {33}});
    auto bb = m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), b);
    auto x  = m->add_parameter("x", shape{shape::float_type, lens});
    auto i  = m->add_parameter("i", shape{shape::int32_type, lens});
    auto an = op(m, "logical_and", {a, bb});
    auto o  = op(m, "logical_or", {an, op(m, "not", {op(m, "floor", {x})})}); // floor: -1 or 0
    auto xo = op(m, "logical_xor", {o, op(m, "not", {i})});
    auto ba = op(m, "bitwise_and", {xo, a});
    m->add_return({ba, op(m, "not", {a})});
    check(p, {"logical_and_floor_not_logical_or_not_logical_xor_kernel", "not_kernel"});
}

TEST(gpu_pointwise_typed, where_float_half_int_with_broadcast_condition)
{
    MIGX_REQUIRE_GPU();
    for(auto t : {shape::float_type, shape::half_type, shape::int32_type, shape::int64_type})
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        std::vector<std::size_t> lens{2, 3, 8, 8};
        auto c  = m->add_parameter("c", shape{shape::bool_type, {8, 8}});
        auto cb = m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), c);
        auto x  = m->add_parameter("x", shape{t, lens});
        auto y  = m->add_parameter("y", shape{t, {2, 1, 8, 1}});
        auto yb = m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), y);
        double low = t == shape::half_type ? -65504.0 : (t == shape::float_type ? -3.4028234663852886e38 : -1000.0);
        auto w1    = op(m, "where", {cb, x, scalar(m, t, low, lens)});
        auto w2    = op(m, "where", {op(m, "not", {cb}), w1, yb});
        m->add_return({w2});
        // not(c) is the same for every [2, 3] index: it runs once on [1, 1, 8, 8] (hoist_broadcasts)
        check(p, {"not_kernel", "where_where_kernel"});
    }
}

TEST(gpu_pointwise_typed, conversions_follow_safe_cast)
{
    MIGX_REQUIRE_GPU();
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> v = {std::numeric_limits<float>::quiet_NaN(), inf, -inf, 1e10f, -1e10f, 2.5f, -2.5f,
                            127.9f, 128.f, -128.f, -128.5f, -129.f, 255.5f, 256.f, 0.f, -0.f, 3e9f, -3e9f,
                            2147483520.f, 9.2e18f, -9.3e18f, 65504.f, 1e5f, 0.4f};
    for(auto ft : {shape::float_type, shape::half_type})
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        shape s{ft, {v.size()}};
        auto x  = m->add_parameter("x", s);
        std::vector<migraphx::instruction_ref> outs;
        for(auto t : {shape::int8_type, shape::uint8_type, shape::int32_type, shape::uint32_type, shape::int64_type,
                      shape::uint64_type, shape::bool_type, shape::half_type, shape::float_type})
            outs.push_back(convert(m, op(m, "neg", {x}), t)); // neg: each convert in a kernel of its own
        m->add_return(outs);
        migraphx::parameter_map in;
        in["x"] = migraphx::literal{s, v}.get_argument();
        check(p, {"neg_kernel"}, 0, &in);
    }
    // integers and bool to float, half and narrower integers (wrapping)
    migraphx::program p;
    auto* m = p.get_main_module();
    std::vector<std::size_t> lens{6, 9};
    auto i  = m->add_parameter("i", shape{shape::int64_type, lens});
    auto b  = m->add_parameter("b", shape{shape::bool_type, lens});
    auto big = op(m, "mul", {i, scalar(m, shape::int64_type, std::int64_t{1099511627777}, lens)}); // 2^40 + 1: float rounds
    m->add_return({convert(m, big, shape::float_type),
                   convert(m, op(m, "add", {i, scalar(m, shape::int64_type, std::int64_t{2049}, lens)}), shape::half_type),
                   convert(m, big, shape::int8_type),
                   convert(m, big, shape::uint32_type),
                   convert(m, big, shape::bool_type),
                   convert(m, b, shape::half_type),
                   convert(m, b, shape::int32_type)});
    check(p, {"mul_kernel", "add_kernel", "copy_kernel"});
}

TEST(gpu_pointwise_typed, integer_arithmetic_wraps_and_divides_by_zero)
{
    MIGX_REQUIRE_GPU();
    for(auto t : {shape::int32_type, shape::int64_type, shape::uint8_type, shape::int8_type})
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        std::vector<std::size_t> lens{5, 13};
        // random integers in [-3, 3] ([0, 6] unsigned): zero and -1 divisors included
        auto a   = m->add_parameter("a", shape{t, lens});
        auto b   = m->add_parameter("b", shape{t, lens});
        std::int64_t top = t == shape::int32_type ? std::numeric_limits<std::int32_t>::max()
                           : t == shape::int64_type ? std::numeric_limits<std::int64_t>::max()
                           : t == shape::uint8_type ? 255
                                                    : 127;
        auto hi  = op(m, "add", {a, scalar(m, t, top, lens)}); // wraps for a > 0
        auto mn  = op(m, "sub", {op(m, "neg", {hi}), b});
        auto mu  = op(m, "mul", {mn, scalar(m, t, std::int64_t{3}, lens)});
        m->add_return({op(m, "div", {hi, b}),
                       op(m, "mod", {a, b}),
                       op(m, "fmod", {mu, b}),
                       op(m, "max", {op(m, "abs", {mn}), op(m, "min", {a, b})}),
                       op(m, "relu", {op(m, "div", {mn, b})})});
        check(p, {"add_kernel"});
    }
}

TEST(gpu_pointwise_typed, bert_and_gpt2_attention_masks)
{
    MIGX_REQUIRE_GPU();
    for(auto t : {shape::float_type, shape::half_type})
    {
        // BERT (transformers' _expand_mask): 1 - float(mask), masked_fill(bool(that), min), added
        // to the scores; GPT-2: arange comparisons (col < row + 1) selecting scores or min.
        migraphx::program p;
        auto* m = p.get_main_module();
        std::vector<std::size_t> lens{2, 4, 16, 16};
        auto mask   = m->add_parameter("attention_mask", shape{shape::int64_type, {2, 16}});
        auto scores = m->add_parameter("scores", shape{t, lens});
        std::vector<std::int64_t> r(16);
        for(std::size_t k = 0; k < 16; k++)
            r[k] = static_cast<std::int64_t>(k);
        auto range = m->add_literal(migraphx::literal{shape{shape::int64_type, {16}}, r});
        auto row   = m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}),
                                      m->add_instruction(make_op("unsqueeze", {{"axes", {1}}}), range));
        auto col   = m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), range);
        double low = t == shape::half_type ? -65504.0 : -3.4028234663852886e38;
        auto mf    = m->add_instruction(make_op("unsqueeze", {{"axes", {1, 2}}}), convert(m, mask, t));
        auto mb    = m->add_instruction(make_op("multibroadcast", {{"out_lens", lens}}), mf);
        auto inv   = op(m, "sub", {scalar(m, t, 1.0f, lens), mb});
        auto pad   = op(m, "where", {convert(m, inv, shape::bool_type), scalar(m, t, low, lens), inv});
        auto keep  = op(m, "less", {col, op(m, "add", {row, scalar(m, shape::int64_type, std::int64_t{1}, lens)})});
        auto cw    = op(m, "where", {keep, scores, scalar(m, t, low, lens)});
        auto sum   = op(m, "add", {cw, pad});
        m->add_return({op(m, "softmax", {sum}, {{"axis", -1}}), sum});
        // masks of 0 and 1 (random ints are in [-3, 3]: 1 - m is never 0 for most)
        migraphx::parameter_map in;
        std::vector<std::int64_t> mv(32);
        for(std::size_t k = 0; k < mv.size(); k++)
            mv[k] = (k % 16) < 12 or k < 16 ? 1 : 0;
        in["attention_mask"] = migraphx::literal{shape{shape::int64_type, {2, 16}}, mv}.get_argument();
        in["scores"]         = migraphx::generate_argument(shape{t, lens}, 7);
        check(p, {"softmax_kernel"}, t == shape::half_type ? 2e-3 : 1e-5, &in);
    }
}
