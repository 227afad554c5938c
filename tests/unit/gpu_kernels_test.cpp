// The generated reduction, softmax, pooling, concat, gather and pad kernels (codegen_reduce.cpp,
// codegen_data.cpp) against ref: fresh random inputs each run, device outputs poisoned with NaN
// (gpu_test_util.hpp), both offload modes; each case checks that the op did not fall back to
// the host. Shapes are chosen to reach each group size (a thread, a warp, a block per output).
#include "gpu_test_util.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <sstream>

using migraphx::make_op;
using migraphx::shape;

namespace {

using migx_test::text;

/// Runs p on both targets, expects every op on the device and `kernel` among the kernels.
void check(const migraphx::program& p, const std::string& kernel, double tol = 1e-4)
{
    auto g = migx_test::expect_gpu_matches_ref(p, tol, tol);
    auto t = text(g);
    EXPECT_EQ(t.find("gpu::ref::"), std::string::npos) << t;
    EXPECT_NE(t.find("symbol_name=" + kernel), std::string::npos) << t;
}

migraphx::value pool(const std::string& mode,
                     std::vector<std::size_t> lengths,
                     std::vector<std::size_t> stride,
                     std::vector<std::size_t> padding,
                     bool ceil_mode = false)
{
    return {{"mode", mode}, {"lengths", lengths}, {"stride", stride}, {"padding", padding}, {"ceil_mode", ceil_mode}};
}

migraphx::program one_op(const shape& s, const std::string& op, const migraphx::value& v, bool transposed = false)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", s);
    if(transposed) // the last two dims swapped: a strided view
    {
        std::vector<std::int64_t> perm(s.lens().size());
        for(std::size_t i = 0; i < perm.size(); i++)
            perm[i] = static_cast<std::int64_t>(i);
        std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
        x = m->add_instruction(make_op("transpose", {{"permutation", perm}}), x);
    }
    m->add_return({m->add_instruction(make_op(op, v), x)});
    return p;
}

} // namespace

TEST(gpu_kernels, max_pooling_resnet_stem_and_ceil_mode)
{
    MIGX_REQUIRE_GPU();
    check(one_op(shape{shape::float_type, {2, 8, 17, 17}}, "pooling", pool("max", {3, 3}, {2, 2}, {1, 1})),
          "max_pooling_kernel");
    check(one_op(shape{shape::float_type, {1, 3, 10, 11}}, "pooling", pool("max", {3, 3}, {2, 2}, {0, 0}, true)),
          "max_pooling_kernel");
}

TEST(gpu_kernels, average_pooling_padding_asymmetric_strided_input)
{
    MIGX_REQUIRE_GPU();
    check(one_op(shape{shape::float_type, {2, 4, 9, 9}}, "pooling", pool("average", {3, 3}, {1, 1}, {1, 1})),
          "average_pooling_kernel");
    check(one_op(shape{shape::float_type, {2, 4, 9, 8}},
                 "pooling",
                 pool("average", {2, 3}, {2, 1}, {0, 0, 1, 2}),
                 true),
          "average_pooling_kernel");
}

TEST(gpu_kernels, global_pooling_warp_and_block_groups)
{
    MIGX_REQUIRE_GPU();
    auto glob = [](const std::string& mode) {
        return migraphx::value{{"mode", mode}, {"global", true}, {"lengths", {1, 1}}, {"stride", {1, 1}},
                               {"padding", {0, 0}}};
    };
    check(one_op(shape{shape::float_type, {2, 16, 7, 7}}, "pooling", glob("average")), "average_pooling_kernel");
    check(one_op(shape{shape::float_type, {1, 4, 40, 40}}, "pooling", glob("max")), "max_pooling_kernel");
    check(one_op(shape{shape::half_type, {2, 8, 7, 7}}, "pooling", glob("average")), "average_pooling_kernel", 2e-3);
}

TEST(gpu_kernels, lp_pooling_1d_and_3d_pooling)
{
    MIGX_REQUIRE_GPU();
    auto lp = pool("lpnorm", {3, 3}, {2, 2}, {1, 1});
    lp["lp_order"] = 2;
    check(one_op(shape{shape::float_type, {2, 3, 8, 8}}, "pooling", lp), "lppool_kernel");
    check(one_op(shape{shape::float_type, {2, 3, 20}}, "pooling", pool("max", {4}, {3}, {1})), "max_pooling_kernel");
    check(one_op(shape{shape::float_type, {1, 2, 6, 7, 8}}, "pooling", pool("average", {2, 2, 2}, {2, 2, 2}, {0, 1, 0})),
          "average_pooling_kernel");
    check(one_op(shape{shape::half_type, {2, 8, 9, 9}}, "pooling", pool("max", {3, 3}, {2, 2}, {1, 1})),
          "max_pooling_kernel", 1e-3);
}

TEST(gpu_kernels, reductions_over_any_axes)
{
    MIGX_REQUIRE_GPU();
    check(one_op(shape{shape::float_type, {4, 64, 9}}, "reduce_sum", {{"axes", {1}}}), "reduce_sum_kernel");
    check(one_op(shape{shape::float_type, {2, 8, 16, 16}}, "reduce_mean", {{"axes", {2, 3}}}), "reduce_mean_kernel");
    check(one_op(shape{shape::float_type, {3, 50, 40}}, "reduce_max", {{"axes", std::vector<std::int64_t>{}}}),
          "reduce_max_kernel");
    check(one_op(shape{shape::float_type, {5, 6, 7}}, "reduce_min", {{"axes", {0, -1}}}, true), "reduce_min_kernel");
    check(one_op(shape{shape::float_type, {3, 4, 5}}, "reduce_prod", {{"axes", {2}}}), "reduce_prod_kernel");
    check(one_op(shape{shape::half_type, {4, 2048}}, "reduce_mean", {{"axes", {1}}}), "reduce_mean_kernel", 2e-3);
    check(one_op(shape{shape::float_type, {2, 3000}}, "reduce_sum", {{"axes", {1}}}, true), "reduce_sum_kernel", 1e-4);
}

TEST(gpu_kernels, softmax_and_logsoftmax)
{
    MIGX_REQUIRE_GPU();
    check(one_op(shape{shape::float_type, {2, 4, 16, 128}}, "softmax", {{"axis", -1}}), "softmax_kernel", 1e-5);
    check(one_op(shape{shape::float_type, {3, 5, 7}}, "softmax", {{"axis", 1}}), "softmax_kernel", 1e-5);
    check(one_op(shape{shape::float_type, {6, 40}}, "softmax", {{"axis", 0}}, true), "softmax_kernel", 1e-5);
    check(one_op(shape{shape::float_type, {4, 3000}}, "logsoftmax", {{"axis", 1}}), "logsoftmax_kernel", 1e-5);
    check(one_op(shape{shape::float_type, {3, 4, 9}}, "logsoftmax", {{"axis", 1}}, true), "logsoftmax_kernel", 1e-5);
    check(one_op(shape{shape::half_type, {8, 100}}, "softmax", {{"axis", 1}}), "softmax_kernel", 2e-3);
}

TEST(gpu_kernels, concat_strided_broadcast_and_int_inputs)
{
    MIGX_REQUIRE_GPU();
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        auto a  = m->add_parameter("a", shape{shape::float_type, {2, 3, 5}});
        auto b  = m->add_parameter("b", shape{shape::float_type, {2, 5, 4}});
        auto bt = m->add_instruction(make_op("transpose", {{"permutation", {0, 2, 1}}}), b);
        auto c  = m->add_parameter("c", shape{shape::float_type, {5}});
        auto cb = m->add_instruction(make_op("multibroadcast", {{"out_lens", {2, 2, 5}}}), c);
        m->add_return({m->add_instruction(make_op("concat", {{"axis", 1}}), a, bt, cb)});
        check(p, "concat_kernel", 0);
    }
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        auto a  = m->add_parameter("a", shape{shape::int32_type, {3, 4}});
        auto b  = m->add_parameter("b", shape{shape::int32_type, {1, 4}});
        m->add_return({m->add_instruction(make_op("concat", {{"axis", -2}}), a, b)});
        check(p, "concat_kernel", 0);
    }
}

TEST(gpu_kernels, gather_embedding_negative_and_scalar_indices)
{
    MIGX_REQUIRE_GPU();
    {
        migraphx::program p;
        auto* m  = p.get_main_module();
        // rows of four 16-byte vectors: the vector loop
        auto t   = m->add_parameter("table", shape{shape::float_type, {100, 16}});
        auto idx = m->add_literal(migraphx::literal{shape{shape::int64_type, {2, 5}},
                                                    std::vector<std::int64_t>{0, 99, -1, 7, 42, 3, -100, 50, 50, 1}});
        m->add_return({m->add_instruction(make_op("gather", {{"axis", 0}}), t, idx)});
        check(p, "gather_kernel", 0);
    }
    {
        migraphx::program p;
        auto* m  = p.get_main_module();
        auto x   = m->add_parameter("x", shape{shape::half_type, {3, 6, 4}});
        auto xt  = m->add_instruction(make_op("transpose", {{"permutation", {0, 2, 1}}}), x);
        auto idx = m->add_literal(migraphx::literal{shape{shape::int32_type, {4}}, std::vector<int>{5, 0, -2, 5}});
        auto one = m->add_literal(migraphx::literal{shape{shape::int32_type}, std::vector<int>{-1}});
        auto g1  = m->add_instruction(make_op("gather", {{"axis", 2}}), xt, idx);
        auto g2  = m->add_instruction(make_op("gather", {{"axis", 1}}), x, one);
        m->add_return({g1, g2});
        check(p, "gather_kernel", 0);
    }
}

TEST(gpu_kernels, pad_constant_reflect_edge_and_crop)
{
    MIGX_REQUIRE_GPU();
    check(one_op(shape{shape::float_type, {2, 3, 4, 5}},
                 "pad",
                 {{"pads", {0, 0, 1, 2, 0, 0, 2, 1}}, {"value", 1.5f}, {"mode", 0}}),
          "pad_kernel",
          0);
    check(one_op(shape{shape::float_type, {3, 6}}, "pad", {{"pads", {2, 4, 1, 5}}, {"mode", 1}}, true), "pad_kernel", 0);
    check(one_op(shape{shape::half_type, {3, 6}}, "pad", {{"pads", {1, 0, 3, 2}}, {"mode", 2}}), "pad_kernel", 0);
    check(one_op(shape{shape::float_type, {4, 6}}, "pad", {{"pads", {-1, 2, 0, -3}}, {"value", -2.0f}}), "pad_kernel", 0);
}
