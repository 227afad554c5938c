// reshape_with_dims: x reshaped to sizes read at run time, as ONNX Reshape reads them.
#include <migraphx/make_op.hpp>
#include <gtest/gtest.h>
#include <numeric>

namespace {
using migraphx::shape;

migraphx::operation rwd(std::vector<std::size_t> dims, bool allowzero = false)
{
    return migraphx::make_op("reshape_with_dims", {{"dims", dims}, {"allowzero", allowzero}});
}
migraphx::argument sizes(std::vector<std::int64_t> v)
{
    migraphx::argument a{shape{shape::int64_type, std::vector<std::size_t>{v.size()}}};
    std::copy(v.begin(), v.end(), reinterpret_cast<std::int64_t*>(a.data()));
    return a;
}
migraphx::argument iota(const shape& s)
{
    migraphx::argument a{s};
    auto* p = reinterpret_cast<float*>(a.data());
    std::iota(p, p + s.elements(), 0.0f);
    return a;
}
} // namespace

TEST(ops_reshape_with_dims, shape_is_the_declared_dims)
{
    shape x{shape::float_type, {8, 4}};
    shape d{shape::int64_type, std::vector<std::size_t>{3}};
    EXPECT_EQ(rwd({8, 2, 2}).compute_shape({x, d}), (shape{shape::float_type, {8, 2, 2}}));
    EXPECT_TRUE(rwd({8, 2, 2}).attributes().at("dynamic_output").get_bool());
    EXPECT_THROW(rwd({8, 4}).compute_shape({x, d}), migraphx::exception); // 3 sizes for rank 2
    EXPECT_THROW(rwd({8, 2, 2}).compute_shape({x, shape{shape::float_type, std::vector<std::size_t>{3}}}),
                 migraphx::exception);
    std::ostringstream ss;
    ss << rwd({8, 2, 2});
    EXPECT_EQ(ss.str(), "reshape_with_dims[dims={8, 2, 2},allowzero=0]");
}

TEST(ops_reshape_with_dims, reads_sizes_as_onnx_does)
{
    auto op  = rwd({8, 2, 2});
    shape out{shape::float_type, {8, 2, 2}};
    auto x   = iota(shape{shape::float_type, {3, 4}}); // 3 of 8 declared rows
    auto r   = op.compute(out, {x, sizes({3, 2, 2})});
    EXPECT_EQ(r.get_shape(), (shape{shape::float_type, {3, 2, 2}}));
    EXPECT_EQ(r.to_vector<float>(), x.to_vector<float>());
    EXPECT_EQ(op.compute(out, {x, sizes({-1, 2, 2})}).get_shape().lens(), (std::vector<std::size_t>{3, 2, 2}));
    EXPECT_EQ(op.compute(out, {x, sizes({0, 2, -1})}).get_shape().lens(), (std::vector<std::size_t>{3, 2, 2}));
    EXPECT_NE(r.data(), x.data()); // a copy: the result owns its memory
    auto none = iota(shape{shape::float_type, {0, 4}});
    EXPECT_EQ(op.compute(out, {none, sizes({0, 2, 2})}).get_shape().lens(), (std::vector<std::size_t>{0, 2, 2}));
    EXPECT_EQ(rwd({8, 2, 2}, true).compute(out, {none, sizes({0, 2, 2})}).get_shape().elements(), 0u);
    // no elements, a copied 0 and a -1 (a detector's reshape(n, -1, 4) with nothing detected): any
    // length fits the -1, so the declared one (before, "cannot infer the -1 size")
    EXPECT_EQ(op.compute(out, {none, sizes({0, -1, 2})}).get_shape().lens(), (std::vector<std::size_t>{0, 2, 2}));
}

TEST(ops_reshape_with_dims, bad_run_time_sizes_throw)
{
    auto op = rwd({8, 2, 2});
    shape out{shape::float_type, {8, 2, 2}};
    auto x  = iota(shape{shape::float_type, {3, 4}});
    EXPECT_THROW(op.compute(out, {x, sizes({4, 2, 2})}), migraphx::exception);  // 16 elements != 12
    EXPECT_THROW(op.compute(out, {x, sizes({-1, -1, 2})}), migraphx::exception); // two -1
    EXPECT_THROW(op.compute(out, {x, sizes({3, -2, 2})}), migraphx::exception);
    auto big = iota(shape{shape::float_type, {12, 4}});
    try
    {
        op.compute(out, {big, sizes({12, 2, 2})});
        FAIL() << "expected an exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("exceed the declared (largest) shape {8, 2, 2}"), std::string::npos)
            << e.what();
    }
}
