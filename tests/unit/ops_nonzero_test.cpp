#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_CPU
#include <migraphx/cpu/target.hpp>
#endif
#include <functional>

namespace {
using migraphx::shape;
using i64 = std::vector<std::int64_t>;
} // namespace

TEST(ops_nonzero, shape_is_the_maximum)
{
    auto op = migraphx::make_op("nonzero");
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {2, 3}}}), (shape{shape::int64_type, {2, 6}}));
    EXPECT_EQ(op.compute_shape({shape{shape::bool_type, {5}}}), (shape{shape::int64_type, {1, 5}}));
    EXPECT_TRUE(op.attributes().at("dynamic_output").get_bool());
    EXPECT_THROW(op.compute_shape({}), migraphx::exception);
    shape s{shape::float_type, {2}};
    EXPECT_THROW(op.compute_shape({s, s}), migraphx::exception);
}

TEST(ops_nonzero, compute_exact_count)
{
    auto op = migraphx::make_op("nonzero");
    std::vector<float> d{0, 1, 0, 2, 0, 3};
    migraphx::argument x{shape{shape::float_type, {2, 3}}, d.data()};
    auto r = op.compute(op.compute_shape({x.get_shape()}), {x});
    EXPECT_EQ(r.get_shape(), (shape{shape::int64_type, {2, 3}}));
    EXPECT_EQ(r.to_vector<std::int64_t>(), (i64{0, 1, 1, 1, 0, 2}));
    std::vector<float> z(4, 0.0f);
    migraphx::argument zx{shape{shape::float_type, {4}}, z.data()};
    EXPECT_EQ(op.compute(op.compute_shape({zx.get_shape()}), {zx}).get_shape().lens(), (std::vector<std::size_t>{1, 0}));
}

TEST(ops_nonzero, program_on_transposed_input)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_literal(migraphx::literal{shape{shape::int32_type, {2, 3}}, std::vector<int>{0, 1, 0, 2, 0, 3}});
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), x);
    mm->add_return({mm->add_instruction(migraphx::make_op("nonzero"), t)});
    p.compile(migraphx::ref::target{});
    auto r = p.eval({}).back();
    // t = [[0, 2], [1, 0], [0, 3]]
    EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(r.to_vector<std::int64_t>(), (i64{0, 1, 2, 1, 0, 1}));
}

// Faster R-CNN's export: NonZero then Transpose(perm 1, 0). The transpose is compiled for
// nonzero's largest shape {1, 8} but gets {1, 3}: it must view what it got.
TEST(ops_nonzero, a_view_of_the_result_sees_its_real_size)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {8}});
    auto nz  = mm->add_instruction(migraphx::make_op("nonzero"), x);
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), nz);
    mm->add_return({mm->add_instruction(migraphx::make_op("contiguous"), t)});
    p.compile(migraphx::ref::target{});
    std::vector<float> d{0, 1, 0, 2, 0, 0, 3, 0};
    auto r = p.eval({{"x", migraphx::argument{shape{shape::float_type, {8}}, d.data()}}}).back();
    EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{3, 1}));
    EXPECT_EQ(r.to_vector<std::int64_t>(), (i64{1, 3, 6}));
}

namespace {

std::vector<std::function<migraphx::target()>> targets()
{
    std::vector<std::function<migraphx::target()>> r{[] { return migraphx::target{migraphx::ref::target{}}; }};
#ifdef MIGRAPHX_HAVE_CPU
    r.push_back([] { return migraphx::target{migraphx::cpu::target{}}; });
#endif
    return r;
}

// torchvision's _onnx_merge_levels (MultiScaleRoIAlign) as the ONNX parser builds it: the rows of
// x at the nonzeros of mask, scattered into zeros {8, 2, 3} at those rows:
//   idx = squeeze(slice(transpose(nonzero(mask))))       {n} (declared {8})
//   index = multibroadcast[{8, 2, 3}](reshape[{8, 1, 1}](idx)) the exporter's -1 and Shape(idx)
//                                                              resolved to the declared 8
//   scatter_none[axis=0](zeros, index, gather(x, idx))
// The reshape and multibroadcast must follow the actual n (0 at an FPN level with no RoI).
migraphx::program merge_levels(const migraphx::target& t)
{
    migraphx::program p;
    auto* mm  = p.get_main_module();
    auto mask = mm->add_parameter("mask", shape{shape::float_type, {8}});
    auto x    = mm->add_parameter("x", shape{shape::float_type, {8, 2, 3}});
    auto nz   = mm->add_instruction(migraphx::make_op("nonzero"), mask);
    auto tr   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), nz);
    auto sl   = mm->add_instruction(migraphx::make_op("slice", {{"axes", {1}}, {"starts", {0}}, {"ends", {1}}}), tr);
    auto idx  = mm->add_instruction(migraphx::make_op("squeeze", {{"axes", {1}}}), sl);
    auto rows = mm->add_instruction(migraphx::make_op("gather", {{"axis", 0}}), x, idx);
    auto neg  = mm->add_instruction(migraphx::make_op("neg"), rows); // a pointwise op on the result
    auto r    = mm->add_instruction(migraphx::make_op("reshape", {{"dims", {8, 1, 1}}}), idx);
    auto ix   = mm->add_instruction(migraphx::make_op("multibroadcast", {{"out_lens", {8, 2, 3}}}), r);
    auto zero = mm->add_literal(migraphx::literal{shape{shape::float_type, {1}}, std::vector<float>{0}});
    auto zs   = mm->add_instruction(migraphx::make_op("multibroadcast", {{"out_lens", {8, 2, 3}}}), zero);
    mm->add_return({mm->add_instruction(migraphx::make_op("scatter_none", {{"axis", 0}}), zs, ix, neg)});
    p.compile(t);
    return p;
}

} // namespace

// Faster R-CNN: 8 RoIs all at FPN level 0, so the other levels' nonzero is empty; one RoI
// (n = 1, where multibroadcast[{8, 2, 3}] of {1, 1, 1} would be valid but wrong); some; all.
TEST(ops_nonzero, reshape_and_broadcast_to_the_declared_size_follow_the_actual_one)
{
    std::vector<float> x(48);
    for(std::size_t i = 0; i < x.size(); i++)
        x[i] = static_cast<float>(i + 1);
    for(const auto& make : targets())
    {
        auto p = merge_levels(make());
        for(const std::vector<float>& mask : {std::vector<float>(8, 0.0f),
                                              std::vector<float>{0, 0, 0, 0, 0, 1, 0, 0},
                                              std::vector<float>{0, 1, 0, 2, 0, 0, 3, 0},
                                              std::vector<float>(8, 1.0f)})
        {
            std::vector<float> want(48, 0.0f);
            for(std::size_t row = 0; row < 8; row++)
                if(mask[row] != 0)
                    for(std::size_t j = 0; j < 6; j++)
                        want[row * 6 + j] = -x[row * 6 + j];
            migraphx::parameter_map pm{
                {"mask", migraphx::argument{shape{shape::float_type, {8}}, const_cast<float*>(mask.data())}},
                {"x", migraphx::argument{shape{shape::float_type, {8, 2, 3}}, x.data()}}};
            auto r = p.eval(pm).back();
            EXPECT_EQ(r.get_shape().lens(), (std::vector<std::size_t>{8, 2, 3})) << p;
            EXPECT_EQ(r.to_vector<float>(), want) << p;
        }
    }
}

// The declared size (4) also stands in the broadcast's out_lens for a fixed dim: only the dim
// that follows the input takes the actual size, {n, 4}, not {n, n}.
TEST(ops_nonzero, only_the_dims_that_follow_the_result_change)
{
    for(const auto& make : targets())
    {
        migraphx::program p;
        auto* mm = p.get_main_module();
        auto m   = mm->add_parameter("m", shape{shape::float_type, {4}});
        auto nz  = mm->add_instruction(migraphx::make_op("nonzero"), m);
        auto r   = mm->add_instruction(migraphx::make_op("reshape", {{"dims", {4, 1}}}), nz);
        auto b   = mm->add_instruction(migraphx::make_op("multibroadcast", {{"out_lens", {4, 4}}}), r);
        mm->add_return({mm->add_instruction(migraphx::make_op("contiguous"), b)});
        p.compile(make());
        std::vector<float> d{0, 5, 0, 7};
        auto out = p.eval({{"m", migraphx::argument{shape{shape::float_type, {4}}, d.data()}}}).back();
        EXPECT_EQ(out.get_shape().lens(), (std::vector<std::size_t>{2, 4})) << p;
        EXPECT_EQ(out.to_vector<std::int64_t>(), (i64{1, 1, 1, 1, 3, 3, 3, 3})) << p;
    }
}
