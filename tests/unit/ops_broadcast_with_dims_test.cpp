// broadcast_with_dims: x broadcast to sizes read at run time (ONNX Expand / ConstantOfShape whose
// sizes come from the shape of a data-dependent result), never past the declared out_lens.
#include <migraphx/make_op.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
using i64 = std::vector<std::int64_t>;

migraphx::operation bwd(std::vector<std::size_t> out_lens)
{
    return migraphx::make_op("broadcast_with_dims", {{"out_lens", out_lens}});
}
migraphx::argument sizes(std::vector<std::int64_t> v)
{
    migraphx::argument a{shape{shape::int64_type, std::vector<std::size_t>{v.size()}}};
    std::copy(v.begin(), v.end(), reinterpret_cast<std::int64_t*>(a.data()));
    return a;
}
} // namespace

TEST(ops_broadcast_with_dims, shape_is_the_declared_out_lens)
{
    shape x{shape::float_type, {3, 1}};
    shape d{shape::int64_type, std::vector<std::size_t>{2}};
    EXPECT_EQ(bwd({3, 5}).compute_shape({x, d}), (shape{shape::float_type, {3, 5}}));
    EXPECT_EQ(bwd({2, 3, 5}).compute_shape({x, shape{shape::int64_type, std::vector<std::size_t>{3}}}).lens(),
              (std::vector<std::size_t>{2, 3, 5}));
    EXPECT_TRUE(bwd({3, 5}).attributes().at("dynamic_output").get_bool());
    EXPECT_THROW(bwd({4, 5}).compute_shape({x, d}), migraphx::exception);  // 3 cannot become 4
    EXPECT_THROW(bwd({3, 5, 1}).compute_shape({x, d}), migraphx::exception); // wrong rank
    EXPECT_THROW(bwd({3, 5}).compute_shape({x, shape{shape::float_type, std::vector<std::size_t>{2}}}),
                 migraphx::exception); // sizes must be integers
    EXPECT_THROW(bwd({3, 5}).compute_shape({x}), migraphx::exception);
}

TEST(ops_broadcast_with_dims, broadcasts_to_the_run_time_sizes)
{
    auto op = bwd({4, 3});
    migraphx::argument x{shape{shape::float_type, {1, 3}}};
    auto* p = reinterpret_cast<float*>(x.data());
    p[0] = 1, p[1] = 2, p[2] = 3;
    auto out = op.compute_shape({x.get_shape(), shape{shape::int64_type, std::vector<std::size_t>{2}}});
    auto r   = op.compute(out, {x, sizes({2, 3})});
    EXPECT_EQ(r.get_shape(), (shape{shape::float_type, {2, 3}})); // standard, not a view
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
    // ConstantOfShape: a scalar to {n}, n = 0 included
    migraphx::argument s{shape{shape::int64_type}};
    *reinterpret_cast<std::int64_t*>(s.data()) = 7;
    auto cs = bwd({5});
    EXPECT_EQ(cs.compute(shape{shape::int64_type, {5}}, {s, sizes({3})}).to_vector<std::int64_t>(), (i64{7, 7, 7}));
    EXPECT_EQ(cs.compute(shape{shape::int64_type, {5}}, {s, sizes({0})}).get_shape().lens(), (std::vector<std::size_t>{0}));
}

TEST(ops_broadcast_with_dims, bad_run_time_sizes_throw)
{
    migraphx::argument s{shape{shape::float_type}};
    auto op = bwd({5});
    shape out{shape::float_type, {5}};
    auto what = [&](const std::vector<std::int64_t>& v) {
        try
        {
            op.compute(out, {s, sizes(v)});
        }
        catch(const migraphx::exception& e)
        {
            return std::string(e.what());
        }
        return std::string("no exception");
    };
    EXPECT_NE(what({6}).find("exceed the declared (largest) shape {5}"), std::string::npos) << what({6});
    EXPECT_NE(what({-1}).find("negative size -1"), std::string::npos) << what({-1});
    migraphx::argument x{shape{shape::float_type, {3}}};
    EXPECT_THROW(bwd({4}).compute(shape{shape::float_type, {4}}, {x, sizes({2})}), migraphx::exception);
}
