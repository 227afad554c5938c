// gpu/device_rows: products, convolutions and ConvTransposes of a data-dependent result's rows
// (a detector's heads after its NMS) run on the device at their declared size, giving the
// reference's result for the actual rows; what stays on the host (a data-dependent operand other
// than the rows, or sizes the front rows do not describe).
#include "gpu_test_util.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#ifdef MIGRAPHX_HAVE_GPU
#include "passes/dead_code_elimination.hpp"
#include "passes/fuse_pointwise.hpp"
#include "passes/pass_manager.hpp"
#include "passes/simplify_pipeline.hpp"
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/device_rows.hpp"
#include <migraphx/gpu/hip.hpp>
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/lowering.hpp"
#include "serialize/op_serializer.hpp"
#endif

using migraphx::make_op;
using migraphx::shape;

namespace {

/// rows of `data` (declared 8) picked by nonzero(c): as many as c has nonzeros.
migraphx::instruction_ref picked_rows(migraphx::module& m, migraphx::instruction_ref data)
{
    auto c   = m.add_parameter("c", shape{shape::float_type, {8}});
    auto nz  = m.add_instruction(make_op("nonzero"), c);
    auto idx = m.add_instruction(make_op("squeeze", {{"axes", {0}}}), nz);
    return m.add_instruction(make_op("gather", {{"axis", 0}}), data, idx);
}

migraphx::instruction_ref weights(migraphx::module& m, const shape& s, unsigned long seed)
{
    return m.add_literal(migraphx::generate_literal(s, seed));
}

/// The ops the device takes over, on picked rows: a product with its bias and relu (an
/// elementwise kernel), a convolution and its relu, a ConvTranspose; `b_picked`: a product whose second
/// operand is the picked rows, transposed (its columns vary: the host computes it).
migraphx::program heads(bool b_picked = false)
{
    migraphx::program p;
    auto* m    = p.get_main_module();
    auto feats = m->add_parameter("feats", shape{shape::float_type, {8, 16}});
    auto maps  = m->add_parameter("maps", shape{shape::float_type, {8, 3, 6, 6}});
    auto rows  = picked_rows(*m, feats);
    auto boxes = m->add_instruction(make_op("gather", {{"axis", 0}}), maps, rows->inputs()[1]);
    std::vector<migraphx::instruction_ref> out;
    if(b_picked)
        out.push_back(m->add_instruction(make_op("dot"), weights(*m, shape{shape::float_type, {2, 16}}, 1),
                                         m->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), rows)));
    else
    {
        auto prod = m->add_instruction(make_op("dot"), rows, weights(*m, shape{shape::float_type, {16, 5}}, 1));
        auto bias = m->add_instruction(make_op("multibroadcast", {{"out_lens", {8, 5}}}),
                                       weights(*m, shape{shape::float_type, {5}}, 4));
        out.push_back(m->add_instruction(make_op("relu"), m->add_instruction(make_op("add"), prod, bias)));
        out.push_back(m->add_instruction(make_op("softmax", {{"axis", -1}}), prod)); // a box head's class scores
        auto conv = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), boxes,
                                       weights(*m, shape{shape::float_type, {4, 3, 3, 3}}, 2));
        out.push_back(m->add_instruction(make_op("relu"), conv));
        out.push_back(m->add_instruction(make_op("convolution_backwards", {{"stride", {2, 2}}}), boxes,
                                         weights(*m, shape{shape::float_type, {3, 2, 2, 2}}, 3)));
    }
    m->add_return(out);
    return p;
}

migraphx::parameter_map heads_params(const migraphx::program& p)
{
    auto params = migx_test::fresh_params(p);
    // 5 of 8 rows (the other input set, 0.5 x + 0.25, has 8 of 8: the declared size)
    migraphx::argument c{shape{shape::float_type, {8}}};
    auto* d = reinterpret_cast<float*>(c.data());
    std::vector<float> v{1, 0, 2, 3, 0, 4, 0, 5};
    std::copy(v.begin(), v.end(), d);
    params["c"] = c;
    return params;
}

} // namespace

TEST(gpu_device_rows, heads_after_a_data_dependent_result_match_ref_at_every_size)
{
    MIGX_REQUIRE_GPU();
    auto p      = heads();
    auto params = heads_params(p);
    auto g      = migx_test::expect_gpu_matches_ref(p, params, 1e-4, 1e-4);
    EXPECT_EQ(migx_test::occurrences(migx_test::text(g), "{rows on device}"), 8u) << g;
#ifdef MIGRAPHX_HAVE_GPU
    // each of them ran on the device (at 5 rows and at the declared 8)
    const auto& m = *g.get_main_module();
    std::size_t on_device = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>(); f != nullptr and f->device)
        {
            EXPECT_GT(f->device_runs->load(), 0u) << f->op.name();
            on_device++;
        }
    EXPECT_EQ(on_device, 8u); // and the two gathers of the picked rows
#endif
    auto r = g.eval(params);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].get_shape().lens(), (std::vector<std::size_t>{5, 5}));
    EXPECT_EQ(r[1].get_shape().lens(), (std::vector<std::size_t>{5, 5}));
    EXPECT_EQ(r[2].get_shape().lens(), (std::vector<std::size_t>{5, 4, 6, 6}));
    EXPECT_EQ(r[3].get_shape().lens(), (std::vector<std::size_t>{5, 2, 12, 12}));
}

/// A mask head's shape of problem: 64 declared rows of feature maps picked by nonzero(c); a
/// convolution, a ConvTranspose and a product of them.
migraphx::program many_rows_head()
{
    migraphx::program p;
    auto* m   = p.get_main_module();
    auto c    = m->add_parameter("c", shape{shape::float_type, {64}});
    auto maps = m->add_parameter("maps", shape{shape::float_type, {64, 4, 5, 5}});
    auto idx  = m->add_instruction(make_op("squeeze", {{"axes", {0}}}), m->add_instruction(make_op("nonzero"), c));
    auto rows = m->add_instruction(make_op("gather", {{"axis", 0}}), maps, idx);
    auto conv = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), rows,
                                   weights(*m, shape{shape::float_type, {6, 4, 3, 3}}, 2));
    auto up   = m->add_instruction(make_op("convolution_backwards", {{"stride", {2, 2}}}), conv,
                                   weights(*m, shape{shape::float_type, {6, 3, 2, 2}}, 3));
    auto flat = m->add_instruction(make_op("flatten", {{"axis", 1}}), rows);
    auto prod = m->add_instruction(make_op("dot"), flat, weights(*m, shape{shape::float_type, {100, 7}}, 1));
    m->add_return({up, prod});
    return p;
}

// A run with fewer actual rows computes the fewest rows a device op was made for that hold them
// (64 declared: ops at 8, 12, 16, 24, 32 and 48 rows too), not all 64; results equal ref's
// at 5, 20, 33 and all 64 rows.
TEST(gpu_device_rows, fewer_actual_rows_run_a_device_op_made_for_fewer)
{
    MIGX_REQUIRE_GPU();
    auto p = many_rows_head();
    for(std::size_t actual : {5u, 20u, 33u, 64u})
    {
        auto params = migx_test::fresh_params(p);
        migraphx::argument c{shape{shape::float_type, {64}}};
        auto* d = reinterpret_cast<float*>(c.data());
        for(std::size_t i = 0; i < 64; i++)
            d[i] = (i * 5) % 64 < actual ? 1.0f : 0.0f; // `actual` rows, spread over the 64
        params["c"] = c;
        auto g      = migx_test::expect_gpu_matches_ref(p, params, 1e-4, 1e-4);
#ifdef MIGRAPHX_HAVE_GPU
        std::size_t ops = 0;
        const auto& m   = *g.get_main_module();
        for(auto it = m.begin(); it != m.end(); ++it)
            if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>();
               f != nullptr and f->device and f->op.name() != "gather")
            {
                ops++;
                EXPECT_EQ(f->device_at_rows.size(), 6u) << f->op.name();
                // the A runs had `actual` rows, the B runs (other values: all nonzero) all 64
                if(actual < 64)
                    EXPECT_GT(f->fewer_rows_runs->load(), 0u) << f->op.name() << " at " << actual;
                else
                    EXPECT_EQ(f->fewer_rows_runs->load(), 0u) << f->op.name();
                EXPECT_LT(f->fewer_rows_runs->load(), f->device_runs->load()) << f->op.name();
            }
        EXPECT_EQ(ops, 3u) << g;
#endif
        auto r = g.eval(params);
        ASSERT_EQ(r.size(), 2u);
        EXPECT_EQ(r[0].get_shape().lens(), (std::vector<std::size_t>{actual, 3, 10, 10}));
        EXPECT_EQ(r[1].get_shape().lens(), (std::vector<std::size_t>{actual, 7}));
    }
}

// An elementwise kernel made with its rows at run time computes the rows asked and leaves the
// rest of the output as it was (the scalar loop and the vector path).
TEST(gpu_device_rows, a_rows_kernel_computes_only_the_rows_asked)
{
    MIGX_REQUIRE_GPU();
#ifdef MIGRAPHX_HAVE_GPU
    auto ctx = migraphx::get_target("gpu").get_context();
    for(auto type : {shape::float_type, shape::half_type})
        for(std::size_t cols : {12u, 16u}) // half rows of 12: scalar only; of 16: 8 a thread
        {
            shape s{type, {8, cols}};
            shape b{type, {8, cols}, {0, 1}};
            migraphx::module sub("main:pointwise_rows");
            auto x0 = sub.add_parameter("x0", s);
            auto x1 = sub.add_parameter("x1", b);
            sub.add_return({sub.add_instruction(make_op("relu"), sub.add_instruction(make_op("add"), x0, x1))});
            auto k = migraphx::gpu::generate_pointwise(sub, {s, b}, s, true);
            ASSERT_TRUE(k.has_value());
            auto op = migraphx::gpu::make_kernel(*k);
            op.finalize(ctx, s, {s, b, s});
            const auto* co = op.any_cast<migraphx::gpu::code_object>();
            ASSERT_NE(co, nullptr);
            auto x    = migraphx::generate_argument(s, 3);
            auto bias = migraphx::generate_argument(shape{type, {cols}}, 4);
            auto y0   = migraphx::literal{s, std::vector<float>(s.elements(), 7.0f)}.get_argument();
            auto dx = migraphx::gpu::to_gpu(x), db = migraphx::gpu::to_gpu(bias), dy = migraphx::gpu::to_gpu(y0);
            for(std::size_t rows : {3u, 0u, 8u})
            {
                auto y = migraphx::gpu::to_gpu(y0);
                co->compute_rows(ctx, {dx, migraphx::argument{b, db.share_data()}, y}, rows);
                auto got = migraphx::gpu::from_gpu(y).to_vector<float>();
                auto xv = x.to_vector<float>(), bv = bias.to_vector<float>();
                for(std::size_t i = 0; i < s.elements(); i++)
                {
                    float want = i / cols < rows ? std::max(0.0f, xv[i] + bv[i % cols]) : 7.0f;
                    EXPECT_NEAR(got[i], want, type == shape::half_type ? 2e-2 : 1e-6)
                        << "rows " << rows << " element " << i << " cols " << cols;
                }
            }
        }
#endif
}

/// Picked rows times a data-dependent value broadcast along them (their max).
migraphx::program rows_times_their_max()
{
    migraphx::program p;
    auto* m   = p.get_main_module();
    auto rows = picked_rows(*m, m->add_parameter("feats", shape{shape::float_type, {8, 16}}));
    auto mx   = m->add_instruction(make_op("reduce_max", {{"axes", {0, 1}}}), rows);
    auto b    = m->add_instruction(make_op("multibroadcast", {{"out_lens", {8, 16}}}), mx);
    m->add_return({m->add_instruction(make_op("mul"), rows, b)});
    return p;
}

TEST(gpu_device_rows, rows_times_a_data_dependent_broadcast_match_ref)
{
    MIGX_REQUIRE_GPU();
    auto p = rows_times_their_max();
    auto g = migx_test::expect_gpu_matches_ref(p, heads_params(p), 1e-5, 1e-5);
#ifdef MIGRAPHX_HAVE_GPU
    const auto& m = *g.get_main_module();
    std::size_t pw = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>(); f != nullptr and f->op.name() == "pointwise")
        {
            EXPECT_GT(f->device_runs->load(), 0u);
            pw++;
        }
    EXPECT_EQ(pw, 1u) << g;
#endif
}

TEST(gpu_device_rows, a_product_of_other_rows_stays_on_the_host)
{
    MIGX_REQUIRE_GPU();
    auto p = heads(true);
    auto g = migx_test::expect_gpu_matches_ref(p, heads_params(p), 1e-4, 1e-4);
    // the gather of the picked rows runs on the device; the product of them, transposed, does not
    EXPECT_EQ(migx_test::occurrences(migx_test::text(g), "{rows on device}"), 1u) << g;
#ifdef MIGRAPHX_HAVE_GPU
    const auto& m = *g.get_main_module();
    std::size_t dots = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>(); f != nullptr and f->op.name() == "dot")
        {
            EXPECT_EQ(f->device, nullptr);
            EXPECT_EQ(f->device_runs->load(), 0u);
            dots++;
        }
    EXPECT_EQ(dots, 1u) << g;
#endif
}

#ifdef MIGRAPHX_HAVE_GPU
TEST(gpu_device_rows_no_device, device_ops_for_row_wise_reference_ops)
{
    shape a{shape::float_type, {8, 16}}, b{shape::float_type, {16, 4}};
    auto dot = migraphx::gpu::device_rows_op(make_op("dot"), {a, b}, shape{shape::float_type, {8, 4}});
    ASSERT_TRUE(dot.has_value());
    EXPECT_EQ(dot->name(), "gpu::gemm");
    shape o{shape::float_type, {8, 4}};
    EXPECT_FALSE(migraphx::gpu::device_rows_op(make_op("dot"), {shape{shape::float_type, {2, 8, 16}}, b}, o));
    EXPECT_FALSE(migraphx::gpu::device_rows_op(make_op("dot"), {shape{shape::int32_type, {8, 16}}, shape{shape::int32_type, {16, 4}}}, o));
    EXPECT_FALSE(migraphx::gpu::device_rows_op(make_op("dot"), {shape{shape::float_type, {8, 16}, {1, 8}}, b}, o)); // a transposed
    shape x{shape::float_type, {8, 3, 6, 6}}, w{shape::float_type, {4, 3, 3, 3}};
    shape co{shape::float_type, {8, 4, 6, 6}};
    auto conv = migraphx::gpu::device_rows_op(make_op("convolution", {{"padding", {1, 1}}}), {x, w}, co);
    ASSERT_TRUE(conv.has_value());
    EXPECT_EQ(conv->name(), "gpu::convolution");
    EXPECT_FALSE(migraphx::gpu::device_rows_op(make_op("convolution", {{"padding", {0, 0, 1, 1}}}), {x, w}, co)); // asymmetric
    auto deconv = migraphx::gpu::device_rows_op(make_op("convolution_backwards"), {x, shape{shape::float_type, {3, 2, 2, 2}}},
                                                shape{shape::float_type, {8, 2, 7, 7}});
    ASSERT_TRUE(deconv.has_value());
    EXPECT_EQ(deconv->name(), "gpu::convolution_backwards");
    EXPECT_FALSE(migraphx::gpu::device_rows_op(make_op("relu"), {x}, x)); // not fused: no module
    EXPECT_FALSE(migraphx::gpu::device_rows_op(make_op("add"), {x, x}, x));
    shape idx{shape::int64_type, {5}};
    auto g0 = migraphx::gpu::device_rows_op(make_op("gather", {{"axis", 0}}), {a, idx}, shape{shape::float_type, {5, 16}});
    ASSERT_TRUE(g0.has_value());
    EXPECT_EQ(g0->name(), "gpu::code_object");
    EXPECT_FALSE(migraphx::gpu::device_rows_op(make_op("gather", {{"axis", 1}}), {a, idx}, shape{shape::float_type, {8, 5}}));
    EXPECT_EQ(migraphx::gpu::row_inputs(make_op("gather", {{"axis", -2}}), {a, idx}, shape{shape::float_type, {5, 16}}),
              (std::vector<bool>{false, true}));
    EXPECT_TRUE(migraphx::gpu::row_inputs(make_op("gather", {{"axis", 1}}), {a, idx}, shape{shape::float_type, {8, 5}}).empty());
    // a softmax along a later axis is each row's own; along the rows it is not
    EXPECT_EQ(migraphx::gpu::row_inputs(make_op("softmax", {{"axis", -1}}), {a}, a), (std::vector<bool>{true}));
    EXPECT_TRUE(migraphx::gpu::row_inputs(make_op("logsoftmax", {{"axis", 0}}), {a}, a).empty());
    auto sm = migraphx::gpu::device_rows_op(make_op("logsoftmax", {{"axis", 1}}), {a}, a);
    ASSERT_TRUE(sm.has_value());
    EXPECT_EQ(sm->name(), "gpu::code_object");
    EXPECT_FALSE(migraphx::gpu::device_rows_op(make_op("softmax", {{"axis", 0}}), {a}, a));
    // which inputs hold the rows: dot's a; a pointwise op's inputs of the output's lens but for
    // those broadcast along the rows
    EXPECT_EQ(migraphx::gpu::row_inputs(make_op("dot"), {a, b}, o), (std::vector<bool>{true, false}));
    shape bias{shape::float_type, {8, 4}, {0, 1}};
    EXPECT_EQ(migraphx::gpu::row_inputs(make_op("pointwise"), {o, bias, o}, o), (std::vector<bool>{true, false, true}));
    EXPECT_TRUE(migraphx::gpu::row_inputs(make_op("relu"), {o}, o).empty());
}

TEST(gpu_device_rows_no_device, fewer_row_counts_for_ops_whose_time_grows_with_rows)
{
    using migraphx::gpu::fewer_row_counts;
    EXPECT_EQ(fewer_row_counts(make_op("convolution"), 100), (std::vector<std::size_t>{13, 19, 25, 38, 50, 75}));
    EXPECT_EQ(fewer_row_counts(make_op("dot"), 1000), (std::vector<std::size_t>{125, 188, 250, 375, 500, 750}));
    EXPECT_EQ(fewer_row_counts(make_op("convolution_backwards"), 16), (std::vector<std::size_t>{8, 12}));
    EXPECT_TRUE(fewer_row_counts(make_op("convolution"), 8).empty()); // at least 8 rows, fewer than declared
    EXPECT_TRUE(fewer_row_counts(make_op("pointwise"), 1000).empty());
    EXPECT_TRUE(fewer_row_counts(make_op("gather", {{"axis", 0}}), 1000).empty());
    // the front rows of the same buffer: strides kept (NHWC too)
    shape nhwc{shape::half_type, {100, 8, 4, 4}, {128, 1, 32, 8}};
    auto s = migraphx::gpu::with_rows(nhwc, 38);
    EXPECT_EQ(s.lens(), (std::vector<std::size_t>{38, 8, 4, 4}));
    EXPECT_EQ(s.strides(), nhwc.strides());
    EXPECT_TRUE(migraphx::gpu::with_rows(shape{shape::float_type, {100, 5}}, 13).standard());
}

TEST(gpu_device_rows_no_device, front_rows_match_only_the_row_inputs_rows)
{
    shape a{shape::float_type, {8, 16}}, b{shape::float_type, {16, 4}}, out{shape::float_type, {8, 4}};
    shape a3{shape::float_type, {3, 16}}, out3{shape::float_type, {3, 4}};
    auto match = [](const std::vector<shape>& d, const std::vector<shape>& x, const shape& r) {
        return migraphx::gpu::front_rows_match(d, x, r, {true, false});
    };
    EXPECT_TRUE(match({a, b, out}, {a3, b}, out3));
    EXPECT_TRUE(match({a, b, out}, {a, b}, out));
    EXPECT_FALSE(match({a, b, out}, {a3, b}, out));                                                   // rows differ
    EXPECT_FALSE(match({a, b, out}, {shape{shape::float_type, {8, 12}}, b}, out));                    // another dim
    EXPECT_FALSE(match({a, b, out}, {a3, shape{shape::float_type, {16, 3}}}, shape{shape::float_type, {3, 3}}));
    EXPECT_FALSE(match({a, b, out}, {shape{shape::float_type, {3, 16}, {1, 3}}, b}, out3));          // other strides
    EXPECT_FALSE(match({a, b, out}, {shape{shape::float_type, {9, 16}}, b}, shape{shape::float_type, {9, 4}}));
    EXPECT_FALSE(migraphx::gpu::front_rows_match({a, b, out}, {a3}, out3, {true}));                   // an input short
    // An elementwise op's two row inputs must hold as many rows; a broadcast input its declared shape.
    shape bias{shape::float_type, {8, 4}, {0, 1}};
    std::vector<bool> rows{true, false, true};
    EXPECT_TRUE(migraphx::gpu::front_rows_match({out, bias, out, out}, {out3, bias, out3}, out3, rows));
    EXPECT_FALSE(migraphx::gpu::front_rows_match({out, bias, out, out}, {out3, bias, out}, out3, rows));
    EXPECT_FALSE(migraphx::gpu::front_rows_match({out, bias, out, out}, {out3, shape{shape::float_type, {3, 4}, {0, 1}}, out3},
                                                 out3, rows));
}

namespace {
/// The gpu::ref::<name> fallbacks of the lowered program, by whether rows_on_device is set.
std::pair<std::size_t, std::size_t> fallbacks(migraphx::program p, const std::string& name)
{
    auto passes = migraphx::simplify_passes();
    passes.insert(passes.end(), {migraphx::fuse_pointwise{}, migraphx::dead_code_elimination{},
                                 migraphx::gpu::lowering{true}, migraphx::dead_code_elimination{}});
    migraphx::run_passes(p, passes);
    std::pair<std::size_t, std::size_t> r{0, 0};
    const auto& m = *p.get_main_module();
    for(auto it = m.begin(); it != m.end(); ++it)
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>(); f != nullptr and f->op.name() == name)
            (f->rows_on_device ? r.first : r.second)++;
    return r;
}
} // namespace

TEST(gpu_device_rows_no_device, lowering_marks_the_row_wise_fallbacks)
{
    EXPECT_EQ(fallbacks(heads(), "dot"), (std::pair<std::size_t, std::size_t>{1, 0}));
    EXPECT_EQ(fallbacks(heads(), "convolution"), (std::pair<std::size_t, std::size_t>{1, 0}));
    EXPECT_EQ(fallbacks(heads(), "convolution_backwards"), (std::pair<std::size_t, std::size_t>{1, 0}));
    EXPECT_EQ(fallbacks(heads(), "pointwise"), (std::pair<std::size_t, std::size_t>{2, 0})); // bias + relu; relu
    EXPECT_EQ(fallbacks(heads(true), "dot"), (std::pair<std::size_t, std::size_t>{0, 1}));
    EXPECT_EQ(fallbacks(heads(), "gather"), (std::pair<std::size_t, std::size_t>{2, 0})); // rows by picked indices
    // the picking itself (nonzero of a parameter): its device form (device_sized.hpp)
    EXPECT_EQ(fallbacks(heads(), "nonzero"), (std::pair<std::size_t, std::size_t>{1, 0}));
    // picked rows times a data-dependent value broadcast along them (their max): on the device;
    // the max itself (a reduction across the rows) on the host
    auto p = rows_times_their_max();
    EXPECT_EQ(fallbacks(p, "pointwise"), (std::pair<std::size_t, std::size_t>{1, 0}));
    EXPECT_EQ(fallbacks(p, "reduce_max"), (std::pair<std::size_t, std::size_t>{0, 1}));
}

// A saved program keeps the mark (its device op is made again at finalize); a file saved before
// the mark existed loads host-only.
TEST(gpu_device_rows_no_device, the_mark_is_saved_and_old_files_load_without_it)
{
    migraphx::gpu::ref_fallback f;
    f.op             = make_op("dot");
    f.rows_on_device = true;
    const auto* s    = migraphx::serialize::find_op_serializer(f.name());
    ASSERT_NE(s, nullptr);
    auto saved  = s->save(migraphx::operation{f});
    auto no_mod = [](const std::string& n) -> migraphx::module_ref {
        throw std::runtime_error("no module " + n);
    };
    auto loaded = s->load(f.name(), saved, no_mod);
    ASSERT_NE(loaded.any_cast<migraphx::gpu::ref_fallback>(), nullptr);
    EXPECT_TRUE(loaded.any_cast<migraphx::gpu::ref_fallback>()->rows_on_device);
    auto old = migraphx::value::object{{"op", "dot"}, {"attrs", make_op("dot").to_value()}, {"module", ""}, {"has_output", true}};
    auto from_old = s->load(f.name(), old, no_mod);
    EXPECT_FALSE(from_old.any_cast<migraphx::gpu::ref_fallback>()->rows_on_device);
}
#endif
