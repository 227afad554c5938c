// range: ONNX Range from inputs read at run time, never longer than max_length.
#include <migraphx/make_op.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;

template <class T>
migraphx::argument scalar(shape::type_t t, T v)
{
    migraphx::argument a{shape{t}};
    *reinterpret_cast<T*>(a.data()) = v;
    return a;
}
migraphx::operation range_op(std::size_t n) { return migraphx::make_op("range", {{"max_length", n}}); }
} // namespace

TEST(ops_range, shape_rules)
{
    shape i{shape::int64_type};
    EXPECT_EQ(range_op(6).compute_shape({i, i, i}), (shape{shape::int64_type, std::vector<std::size_t>{6}}));
    EXPECT_TRUE(range_op(6).attributes().at("dynamic_output").get_bool());
    EXPECT_THROW(range_op(6).compute_shape({i, i}), migraphx::exception);
    EXPECT_THROW(range_op(6).compute_shape({i, i, shape{shape::float_type}}), migraphx::exception);
    EXPECT_THROW(range_op(6).compute_shape({i, i, shape{shape::int64_type, std::vector<std::size_t>{2}}}),
                 migraphx::exception);
}

TEST(ops_range, values_as_onnx)
{
    auto op = range_op(6);
    shape out{shape::int64_type, std::vector<std::size_t>{6}};
    auto i = [](std::int64_t v) { return scalar(shape::int64_type, v); };
    EXPECT_EQ(op.compute(out, {i(0), i(3), i(1)}).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2}));
    EXPECT_EQ(op.compute(out, {i(10), i(4), i(-3)}).to_vector<std::int64_t>(), (std::vector<std::int64_t>{10, 7}));
    EXPECT_EQ(op.compute(out, {i(5), i(1), i(1)}).get_shape().lens(), (std::vector<std::size_t>{0}));
    auto f = [](float v) { return scalar(shape::float_type, v); };
    EXPECT_EQ(range_op(4).compute(shape{shape::float_type, std::vector<std::size_t>{4}}, {f(0.5f), f(2.0f), f(0.5f)})
                  .to_vector<float>(),
              (std::vector<float>{0.5f, 1.0f, 1.5f}));
}

TEST(ops_range, bad_run_time_inputs_throw)
{
    auto op = range_op(2);
    shape out{shape::int64_type, std::vector<std::size_t>{2}};
    auto i = [](std::int64_t v) { return scalar(shape::int64_type, v); };
    EXPECT_THROW(op.compute(out, {i(0), i(3), i(0)}), migraphx::exception);
    try
    {
        op.compute(out, {i(0), i(3), i(1)});
        FAIL() << "expected an exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("exceed the declared (largest) length 2"), std::string::npos) << e.what();
    }
}
