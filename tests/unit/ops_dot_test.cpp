#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <sstream>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
using fvec = std::vector<float>;
shape fs(lvec lens) { return shape{shape::float_type, std::move(lens)}; }

migraphx::argument run(const std::string& name, const migraphx::argument& a, const migraphx::argument& b)
{
    auto op = migraphx::make_op(name);
    auto s  = op.compute_shape({a.get_shape(), b.get_shape()});
    auto r  = op.compute(s, {a, b});
    EXPECT_EQ(r.get_shape(), s);
    return r;
}
} // namespace

TEST(ops_dot, prints_without_attributes)
{
    std::ostringstream ss;
    ss << migraphx::make_op("dot") << " " << migraphx::make_op("quant_dot");
    EXPECT_EQ(ss.str(), "dot quant_dot");
}

TEST(ops_dot, shape_rules)
{
    auto dot = migraphx::make_op("dot");
    EXPECT_EQ(dot.compute_shape({fs({2, 3}), fs({3, 4})}), fs({2, 4}));
    EXPECT_EQ(dot.compute_shape({fs({5, 2, 3}), fs({5, 3, 4})}), fs({5, 2, 4}));
    EXPECT_EQ(dot.compute_shape({fs({2, 5, 1, 3}), fs({2, 5, 3, 7})}), fs({2, 5, 1, 7}));
    // Transposed inputs are fine; the output is standard.
    EXPECT_EQ(dot.compute_shape({shape{shape::float_type, {2, 3}, {1, 2}}, fs({3, 4})}), fs({2, 4}));
    auto h = shape{shape::half_type, {4, 4}};
    EXPECT_EQ(dot.compute_shape({h, h}), h);
    auto q = migraphx::make_op("quant_dot");
    shape a{shape::int8_type, {2, 3}};
    shape b{shape::int8_type, {3, 4}};
    EXPECT_EQ(q.compute_shape({a, b}), (shape{shape::int32_type, {2, 4}}));
}

TEST(ops_dot, bad_shapes_throw)
{
    auto dot = migraphx::make_op("dot");
    EXPECT_THROW(dot.compute_shape({fs({2, 3}), fs({4, 3})}), migraphx::exception);       // inner
    EXPECT_THROW(dot.compute_shape({fs({2, 2, 3}), fs({3, 3, 4})}), migraphx::exception); // batch
    EXPECT_THROW(dot.compute_shape({fs({2, 3}), fs({2, 3, 4})}), migraphx::exception);    // rank
    EXPECT_THROW(dot.compute_shape({fs({3}), fs({3})}), migraphx::exception);             // rank < 2
    EXPECT_THROW(dot.compute_shape({fs({2, 3})}), migraphx::exception);
    EXPECT_THROW(dot.compute_shape({fs({2, 3}), shape{shape::half_type, {3, 4}}}), migraphx::exception);
    shape i8a{shape::int8_type, {2, 3}};
    shape i8b{shape::int8_type, {3, 4}};
    EXPECT_THROW(dot.compute_shape({i8a, i8b}), migraphx::exception);
    auto q = migraphx::make_op("quant_dot");
    EXPECT_THROW(q.compute_shape({fs({2, 3}), fs({3, 4})}), migraphx::exception);
    EXPECT_THROW(q.compute_shape({i8a, shape{shape::int8_type, {4, 4}}}), migraphx::exception);
    try
    {
        dot.compute_shape({fs({2, 3}), fs({4, 3})});
        FAIL() << "expected a throw";
    }
    catch(const migraphx::exception& e)
    {
        std::string msg = e.what();
        EXPECT_NE(msg.find("dot"), std::string::npos) << msg;
        EXPECT_NE(msg.find("{4, 3}"), std::string::npos) << msg;
    }
}

TEST(ops_dot, hand_computed)
{
    fvec a{1, 2, 3, 4, 5, 6}; // [[1,2,3],[4,5,6]]
    fvec b{7, 8, 9, 10, 11, 12}; // [[7,8],[9,10],[11,12]]
    migraphx::argument aa{fs({2, 3}), a.data()};
    migraphx::argument ba{fs({3, 2}), b.data()};
    EXPECT_EQ(run("dot", aa, ba).to_vector<float>(), (fvec{58, 64, 139, 154}));
    // Batched: the second batch is the first times 2 in a.
    fvec a2{1, 2, 3, 4, 5, 6, 2, 4, 6, 8, 10, 12};
    fvec b2{7, 8, 9, 10, 11, 12, 7, 8, 9, 10, 11, 12};
    migraphx::argument a2a{fs({2, 2, 3}), a2.data()};
    migraphx::argument b2a{fs({2, 3, 2}), b2.data()};
    EXPECT_EQ(run("dot", a2a, b2a).to_vector<float>(), (fvec{58, 64, 139, 154, 116, 128, 278, 308}));
}

TEST(ops_dot, strided_and_broadcast_inputs)
{
    fvec a{1, 2, 3, 4, 5, 6};
    // b given as the transpose of a {2, 3} buffer [[7, 9, 11], [8, 10, 12]].
    fvec bt{7, 9, 11, 8, 10, 12};
    migraphx::argument aa{fs({2, 3}), a.data()};
    migraphx::argument ba{shape{shape::float_type, {3, 2}, {1, 3}}, bt.data()};
    EXPECT_EQ(run("dot", aa, ba).to_vector<float>(), (fvec{58, 64, 139, 154}));
    // a broadcast over a batch of 2 (batch stride 0) against two different b's.
    fvec b2{7, 8, 9, 10, 11, 12, 1, 0, 0, 1, 0, 0};
    migraphx::argument ab{shape{shape::float_type, {2, 2, 3}, {0, 3, 1}}, a.data()};
    migraphx::argument b2a{fs({2, 3, 2}), b2.data()};
    EXPECT_EQ(run("dot", ab, b2a).to_vector<float>(), (fvec{58, 64, 139, 154, 1, 2, 4, 5}));
    // A sliced a: rows 1..2 of a {3, 3} buffer via an offset pointer and standard strides.
    fvec big{0, 0, 0, 1, 2, 3, 4, 5, 6};
    migraphx::argument as{fs({2, 3}), big.data() + 3};
    EXPECT_EQ(run("dot", as, migraphx::argument{fs({3, 2}), bt.data()}).to_vector<float>(),
              (fvec{1 * 7 + 2 * 11 + 3 * 10, 1 * 9 + 2 * 8 + 3 * 12, 4 * 7 + 5 * 11 + 6 * 10, 4 * 9 + 5 * 8 + 6 * 12}));
}

TEST(ops_dot, half_accumulates_in_double)
{
    // 2048 + 1 + 1 is 2050 in half only if the sum is not rounded after each step (2049 is not a half).
    std::vector<migraphx::half> a{2048, 1, 1};
    std::vector<migraphx::half> b{1, 1, 1};
    migraphx::argument aa{shape{shape::half_type, {1, 3}}, a.data()};
    migraphx::argument ba{shape{shape::half_type, {3, 1}}, b.data()};
    auto r = run("dot", aa, ba);
    EXPECT_EQ(r.get_shape().type(), shape::half_type);
    EXPECT_EQ(r.at<float>(), 2050.0f);
}

TEST(ops_dot, quant_dot_int32_results)
{
    std::vector<std::int8_t> a{127, 127, 127, -128, -128, -128};
    std::vector<std::int8_t> b{127, -128, 127, -128, 127, -128};
    migraphx::argument aa{shape{shape::int8_type, {2, 3}}, a.data()};
    migraphx::argument ba{shape{shape::int8_type, {3, 2}}, b.data()};
    auto r = run("quant_dot", aa, ba);
    EXPECT_EQ(r.get_shape(), (shape{shape::int32_type, {2, 2}}));
    EXPECT_EQ(r.to_vector<std::int32_t>(),
              (std::vector<std::int32_t>{3 * 127 * 127, 3 * 127 * -128, 3 * -128 * 127, 3 * 128 * 128}));
    // Transposed int8 b.
    std::vector<std::int8_t> bt{1, 2, 3, 4, 5, 6}; // logical b = [[1, 4], [2, 5], [3, 6]]
    migraphx::argument bta{shape{shape::int8_type, {3, 2}, {1, 3}}, bt.data()};
    EXPECT_EQ(run("quant_dot", aa, bta).to_vector<std::int32_t>(),
              (std::vector<std::int32_t>{127 * 6, 127 * 15, -128 * 6, -128 * 15}));
}

TEST(ops_dot, empty_inner_dimension_gives_zeros)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto a   = mm->add_literal(migraphx::literal{migraphx::shape{migraphx::shape::float_type, {2, 3, 0}}, std::vector<float>{}});
    auto b   = mm->add_literal(migraphx::literal{migraphx::shape{migraphx::shape::float_type, {2, 0, 4}}, std::vector<float>{}});
    mm->add_return({mm->add_instruction(migraphx::make_op("dot"), a, b)});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({}).back();
    EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{2, 3, 4}));
    EXPECT_EQ(r.to_vector<float>(), std::vector<float>(24, 0.0f));
}

TEST(ops_dot, fp8_dot_scales_the_product_of_e4m3_values)
{
    using migraphx::fp8e4m3fn;
    // a {2, 3} x b {3, 2}; a transposed view of b too
    std::vector<fp8e4m3fn> av{1.0f, -2.0f, 0.5f, 448.0f, 0.0f, -0.125f};
    std::vector<fp8e4m3fn> bv{1.0f, 2.0f, 3.0f, -1.0f, 0.25f, 8.0f};
    migraphx::argument a{shape{shape::fp8e4m3fn_type, {2, 3}}, av.data()};
    migraphx::argument b{shape{shape::fp8e4m3fn_type, {3, 2}}, bv.data()};
    auto op = migraphx::make_op("fp8_dot", {{"alpha", 0.5}, {"out_type", shape::float_type}});
    auto s  = op.compute_shape({a.get_shape(), b.get_shape()});
    EXPECT_EQ(s, (shape{shape::float_type, {2, 2}}));
    // row 0: 1*1 - 2*3 + 0.5*0.25 = -4.875, 1*2 + 2 + 4 = 8; row 1: 448 - 0.03125, 896 - 1
    EXPECT_EQ(op.compute(s, {a, b}).to_vector<float>(),
              (fvec{-4.875f * 0.5f, 8.0f * 0.5f, (448.0f - 0.03125f) * 0.5f, 895.0f * 0.5f}));
    auto h = migraphx::make_op("fp8_dot", {{"alpha", 1.0}});
    EXPECT_EQ(h.compute_shape({a.get_shape(), b.get_shape()}).type(), shape::half_type) << "half by default";
    EXPECT_THROW(h.compute_shape({fs({2, 3}), b.get_shape()}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("fp8_dot", {{"out_type", shape::int32_type}}).compute_shape({a.get_shape(), b.get_shape()}),
                 migraphx::exception);
    std::ostringstream ss;
    ss << op;
    EXPECT_EQ(ss.str(), "fp8_dot[alpha=0.5,out_type=2]");
}
