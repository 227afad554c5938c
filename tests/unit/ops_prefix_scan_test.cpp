#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
migraphx::operation scan(std::int64_t axis, bool excl, bool rev)
{
    return migraphx::make_op("prefix_scan_sum", {{"axis", axis}, {"exclusive", excl}, {"reverse", rev}});
}
template <class T>
std::vector<T> run(const migraphx::operation& op, const shape& s, std::vector<T> v)
{
    migraphx::argument a{s, v.data()};
    return op.compute(op.compute_shape({s}), {a}).template to_vector<T>();
}
} // namespace

TEST(ops_prefix_scan, shape_rules_and_bad_inputs)
{
    shape s{shape::float_type, {2, 3}};
    EXPECT_EQ(scan(1, false, false).compute_shape({s}), s);
    EXPECT_THROW(scan(2, false, false).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(scan(0, false, false).compute_shape({s, s}), migraphx::exception);
    std::ostringstream ss;
    ss << scan(-1, true, false);
    EXPECT_EQ(ss.str(), "prefix_scan_sum[axis=-1,exclusive=1,reverse=0]");
}

TEST(ops_prefix_scan, onnx_cumsum_modes)
{
    shape s{shape::float_type, {5}};
    std::vector<float> x{1, 2, 3, 4, 5};
    EXPECT_EQ(run(scan(0, false, false), s, x), (std::vector<float>{1, 3, 6, 10, 15}));
    EXPECT_EQ(run(scan(0, true, false), s, x), (std::vector<float>{0, 1, 3, 6, 10}));
    EXPECT_EQ(run(scan(0, false, true), s, x), (std::vector<float>{15, 14, 12, 9, 5}));
    EXPECT_EQ(run(scan(0, true, true), s, x), (std::vector<float>{14, 12, 9, 5, 0}));
    shape m{shape::int64_type, {2, 3}};
    EXPECT_EQ(run(scan(1, false, false), m, std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}),
              (std::vector<std::int64_t>{1, 3, 6, 4, 9, 15}));
    EXPECT_EQ(run(scan(0, false, false), m, std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}),
              (std::vector<std::int64_t>{1, 2, 3, 5, 7, 9}));
}

TEST(ops_prefix_scan, program_on_sliced_input)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{shape{shape::float_type, {2, 3}}, std::vector<float>{1, 2, 3, 4, 5, 6}});
    auto sl  = mm->add_instruction(migraphx::make_op("slice", {{"axes", {1}}, {"starts", {1}}, {"ends", {3}}}), x);
    mm->add_return({mm->add_instruction(scan(-1, false, true), sl)});
    p.compile(migraphx::ref::target{});
    EXPECT_EQ(p.eval({}).back().to_vector<float>(), (std::vector<float>{5, 3, 11, 6}));
}
