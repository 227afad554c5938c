#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
using lvec = std::vector<std::size_t>;
migraphx::operation gnd(std::int64_t b) { return migraphx::make_op("gathernd", {{"batch_dims", b}}); }
} // namespace

TEST(ops_gathernd, shape_rules)
{
    shape d{shape::float_type, {2, 3, 4}};
    EXPECT_EQ(gnd(0).compute_shape({d, shape{shape::int64_type, {5, 2}}}).lens(), (lvec{5, 4}));
    EXPECT_EQ(gnd(0).compute_shape({d, shape{shape::int64_type, {5, 3}}}).lens(), (lvec{5}));
    EXPECT_EQ(gnd(1).compute_shape({d, shape{shape::int64_type, {2, 1}}}).lens(), (lvec{2, 4}));
    EXPECT_EQ(gnd(1).compute_shape({d, shape{shape::int32_type, {2, 6, 2}}}).lens(), (lvec{2, 6}));
}

TEST(ops_gathernd, bad_inputs_throw)
{
    shape d{shape::float_type, {2, 3}};
    EXPECT_THROW(gnd(0).compute_shape({d, shape{shape::int64_type, {1, 3}}}), migraphx::exception);
    EXPECT_THROW(gnd(0).compute_shape({d, shape{shape::float_type, {1, 1}}}), migraphx::exception);
    EXPECT_THROW(gnd(1).compute_shape({d, shape{shape::int64_type, {3, 1}}}), migraphx::exception);
    EXPECT_THROW(gnd(2).compute_shape({d, shape{shape::int64_type, {2, 1}}}), migraphx::exception);
    std::vector<float> x{0, 1, 2, 3, 4, 5};
    std::vector<std::int64_t> bad{2, 0};
    shape is{shape::int64_type, {1, 2}};
    migraphx::argument dx{d, x.data()}, ix{is, bad.data()};
    EXPECT_THROW(gnd(0).compute(gnd(0).compute_shape({d, is}), {dx, ix}), migraphx::exception);
}

TEST(ops_gathernd, onnx_examples)
{
    // ONNX GatherND examples 1, 3 and 5 (batch_dims = 1).
    std::vector<float> d2{0, 1, 2, 3};
    std::vector<std::int64_t> i1{0, 0, 1, 1};
    migraphx::argument a2{shape{shape::float_type, {2, 2}}, d2.data()};
    migraphx::argument ia{shape{shape::int64_type, {2, 2}}, i1.data()};
    EXPECT_EQ(gnd(0).compute(gnd(0).compute_shape({a2.get_shape(), ia.get_shape()}), {a2, ia}).to_vector<float>(),
              (std::vector<float>{0, 3}));

    std::vector<float> d3{0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<std::int64_t> i3{0, 1, 1, 0};
    migraphx::argument a3{shape{shape::float_type, {2, 2, 2}}, d3.data()};
    migraphx::argument ib{shape{shape::int64_type, {2, 1, 2}}, i3.data()};
    auto r = gnd(0).compute(gnd(0).compute_shape({a3.get_shape(), ib.get_shape()}), {a3, ib});
    EXPECT_EQ(r.get_shape().lens(), (lvec{2, 1, 2}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{2, 3, 4, 5}));

    std::vector<std::int64_t> i5{1, -2};
    migraphx::argument ic{shape{shape::int64_type, {2, 1}}, i5.data()};
    r = gnd(1).compute(gnd(1).compute_shape({a3.get_shape(), ic.get_shape()}), {a3, ic});
    EXPECT_EQ(r.get_shape().lens(), (lvec{2, 2}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{2, 3, 4, 5}));
}

TEST(ops_gathernd, program_on_transposed_data)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto d   = mm->add_literal(migraphx::literal{shape{shape::float_type, {2, 3}}, std::vector<float>{0, 1, 2, 3, 4, 5}});
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), d); // [[0,3],[1,4],[2,5]]
    auto i   = mm->add_literal(migraphx::literal{shape{shape::int32_type, {2, 1}}, std::vector<int>{2, 0}});
    mm->add_return({mm->add_instruction(gnd(0), t, i)});
    p.compile(migraphx::ref::target{});
    EXPECT_EQ(p.eval({}).back().to_vector<float>(), (std::vector<float>{2, 5, 0, 3}));
}
