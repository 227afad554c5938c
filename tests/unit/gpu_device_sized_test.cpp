// gpu/device_sized: the ops after a detector's NMS that run on the device at the run's sizes
// (RoIAlign on the kept boxes, MultiScaleRoIAlign's per-level scatter, Expand/Reshape to sizes
// read from a data-dependent shape, Shape of it, gathers and concats of such results) give ref's results at
// every size, and ran on the device (each fallback counts its device runs).
#include "gpu_test_util.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#ifdef MIGRAPHX_HAVE_GPU
#include "passes/pass_manager.hpp"
#include "targets/gpu/device_sized.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/lowering.hpp"
#endif
#include <limits>
#include <set>

using migraphx::make_op;
using migraphx::shape;

namespace {

using ins_t = migraphx::instruction_ref;

ins_t squeezed_nonzero(migraphx::module& m, ins_t x)
{
    return m.add_instruction(make_op("squeeze", {{"axes", {0}}}), m.add_instruction(make_op("nonzero"), x));
}

ins_t i64_literal(migraphx::module& m, const std::vector<std::int64_t>& v)
{
    return m.add_literal(migraphx::literal{shape{shape::int64_type, {v.size()}}, v});
}

/// A MultiScaleRoIAlign as torchvision exports it: the boxes kept by nonzero(c), split in two
/// levels by their score; each level's RoIAlign scattered back into a zero tensor of all kept
/// boxes (its sizes computed from their count), flattened; and the kept boxes with two of their
/// columns gathered and concatenated.
migraphx::program multiscale_roialign(shape::type_t t)
{
    migraphx::program p;
    auto* m     = p.get_main_module();
    auto c      = m->add_parameter("c", shape{shape::float_type, {8}});
    auto boxes  = m->add_parameter("boxes", shape{t, {8, 4}});
    auto feat0  = m->add_parameter("feat0", shape{t, {1, 3, 8, 8}});
    auto feat1  = m->add_parameter("feat1", shape{t, {1, 3, 4, 4}});
    auto keep   = squeezed_nonzero(*m, c);
    auto rois   = m->add_instruction(make_op("gather", {{"axis", 0}}), boxes, keep);
    auto score  = m->add_instruction(make_op("gather", {{"axis", 0}}), c, keep);
    auto thresh = m->add_instruction(make_op("multibroadcast", {{"out_lens", {8}}}),
                                     m->add_literal(migraphx::literal{shape{shape::float_type}, {1.5f}}));
    auto high   = m->add_instruction(make_op("greater"), score, thresh);
    auto low    = m->add_instruction(make_op("not"), high);
    auto zeros8 = i64_literal(*m, std::vector<std::int64_t>(8, 0));
    auto dims   = m->add_instruction(make_op("concat", {{"axis", 0}}),
                                   m->add_instruction(make_op("dimensions_of", {{"start", 0}, {"end", 1}}), rois),
                                   i64_literal(*m, {3, 2, 2}));
    auto result = m->add_instruction(make_op("broadcast_with_dims", {{"out_lens", {8, 3, 2, 2}}}),
                                     m->add_literal(migraphx::literal{shape{t}, {0.0f}}), dims);
    float scale = 1.0f;
    for(auto [level, feat] : {std::make_pair(low, feat0), std::make_pair(high, feat1)})
    {
        auto pos   = squeezed_nonzero(*m, level);
        auto r     = m->add_instruction(make_op("gather", {{"axis", 0}}), rois, pos);
        auto batch = m->add_instruction(make_op("gather", {{"axis", 0}}), zeros8, pos);
        auto ra    = m->add_instruction(make_op("roialign",
                                              {{"coordinate_transformation_mode", "output_half_pixel"},
                                               {"output_height", 2},
                                               {"output_width", 2},
                                               {"sampling_ratio", 2},
                                               {"spatial_scale", scale}}),
                                     feat, r, batch);
        auto idx   = m->add_instruction(make_op("reshape_with_dims", {{"dims", {8, 1, 1, 1}}}), pos,
                                      i64_literal(*m, {-1, 1, 1, 1}));
        auto wide  = m->add_instruction(make_op("broadcast_with_dims", {{"out_lens", {8, 3, 2, 2}}}), idx,
                                       m->add_instruction(make_op("dimensions_of", {{"start", 0}, {"end", 4}}), ra));
        result     = m->add_instruction(make_op("scatter_none", {{"axis", 0}}), result, wide, ra);
        scale /= 2;
    }
    auto flat  = m->add_instruction(make_op("reshape_with_dims", {{"dims", {8, 12}}}), result, i64_literal(*m, {-1, 12}));
    auto cols  = m->add_instruction(make_op("gather", {{"axis", 1}}), rois, i64_literal(*m, {3, 0}));
    auto boxed = m->add_instruction(make_op("concat", {{"axis", 1}}), rois, cols);
    m->add_return({flat, boxed});
    return p;
}

migraphx::parameter_map multiscale_params(const migraphx::program& p, shape::type_t t)
{
    auto params = migx_test::fresh_params(p);
    // 5 of 8 boxes kept (1 low, 4 high); the other input set (0.5 x + 0.25) keeps all 8 (5 low, 3 high)
    params["c"] = migraphx::literal{shape{shape::float_type, {8}}, {1, 0, 2, 3, 0, 4, 0, 5}}.get_argument();
    // boxes inside the 8 x 8 map, some past its edge (the samples outside count 0)
    std::vector<float> b{0, 0, 4, 4, 1, 2, 7, 5, 2, 1, 3, 6, 0.5f, 0.5f, 7.5f, 7.5f,
                         5, 5, 9, 10, 3, 0, 6, 2, 6, 6, 7, 7, 1, 3, 2, 8};
    params["boxes"] = migraphx::literal{shape{t, {8, 4}}, b}.get_argument();
    return params;
}

#ifdef MIGRAPHX_HAVE_GPU
/// The fallbacks of p (compiled for gpu) whose op is one of `names`: each has a device form and ran on it.
std::size_t sized_fallbacks_that_ran(const migraphx::program& g, const std::set<std::string>& names)
{
    std::size_t n = 0;
    const auto& m = *g.get_main_module();
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>();
        if(f == nullptr or names.count(f->op.name()) == 0)
            continue;
        EXPECT_TRUE(f->device != nullptr or f->sized != nullptr) << f->op.name();
        EXPECT_GT(f->device_runs->load(), 0u) << f->op.name() << " ran on the host only";
        n++;
    }
    return n;
}
#endif

} // namespace

TEST(gpu_device_sized, multiscale_roialign_after_a_data_dependent_result_matches_ref)
{
    MIGX_REQUIRE_GPU();
    auto p      = multiscale_roialign(shape::float_type);
    auto params = multiscale_params(p, shape::float_type);
    auto g      = migx_test::expect_gpu_matches_ref(p, params, 1e-4, 1e-4);
#ifdef MIGRAPHX_HAVE_GPU
    // 2 roialign, 2 scatters, 3 broadcast_with_dims, 3 reshape_with_dims, 2 nonzero (of the
    // kept boxes' scores); the nonzero of the parameter c is split in two (gpu::early_nonzero)
    EXPECT_EQ(sized_fallbacks_that_ran(g, {"roialign", "scatter_none", "broadcast_with_dims", "reshape_with_dims",
                                           "nonzero"}),
              12u)
        << g;
    EXPECT_EQ(migx_test::occurrences(migx_test::text(g), "gpu::nonzero_start"), 1u) << g;
    // the 3 dimensions_of are read only as Expand's sizes, from their notes: computed on the host,
    // never written to the device (gpu::host_only_values)
    std::size_t host_only = 0;
    for(auto it = g.get_main_module()->begin(); it != g.get_main_module()->end(); ++it)
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>())
            if(f->op.name() == "dimensions_of")
            {
                EXPECT_TRUE(f->host_only) << "dimensions_of written to the device";
                EXPECT_EQ(f->device_runs->load(), 0u) << "dimensions_of launched";
                host_only++;
            }
    EXPECT_EQ(host_only, 3u) << g;
    // Expand/Reshape took their sizes from the host's notes (no copy back, no wait); the concat
    // of sizes was computed on the host from notes
    for(auto it = g.get_main_module()->begin(); it != g.get_main_module()->end(); ++it)
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>())
            if(f->op.name() == "broadcast_with_dims" or f->op.name() == "reshape_with_dims" or
               (f->host_value and f->op.name() != "dimensions_of"))
                EXPECT_GT(f->noted_reads->load(), 0u) << f->op.name() << " copied its sizes back";
#endif
    auto r = g.eval(params);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].get_shape().lens(), (std::vector<std::size_t>{5, 12}));
    EXPECT_EQ(r[1].get_shape().lens(), (std::vector<std::size_t>{5, 6}));
}

TEST(gpu_device_sized, multiscale_roialign_in_half_matches_ref)
{
    MIGX_REQUIRE_GPU();
    auto p = multiscale_roialign(shape::half_type);
    migx_test::expect_gpu_matches_ref(p, multiscale_params(p, shape::half_type), 4e-3, 4e-3);
}

/// RoIAlign of static inputs (every mode, adaptive sampling) also runs on the device.
TEST(gpu_device_sized, roialign_of_static_inputs_matches_ref_in_every_mode)
{
    MIGX_REQUIRE_GPU();
    for(std::string ctm : {"half_pixel", "output_half_pixel"})
        for(std::string mode : {"avg", "max"})
            for(int sampling : {0, 3})
            {
                migraphx::program p;
                auto* m   = p.get_main_module();
                auto x    = m->add_parameter("x", shape{shape::float_type, {2, 4, 9, 7}});
                auto rois = m->add_literal(migraphx::literal{
                    shape{shape::float_type, {3, 4}}, {0.f, 0.f, 6.f, 8.f, 1.5f, 2.5f, 3.f, 7.f, -2.f, 4.f, 9.f, 12.f}});
                auto batch = i64_literal(*m, {1, 0, 1});
                m->add_instruction(make_op("roialign",
                                           {{"coordinate_transformation_mode", ctm},
                                            {"mode", mode},
                                            {"output_height", 3},
                                            {"output_width", 2},
                                            {"sampling_ratio", sampling},
                                            {"spatial_scale", 0.75f}}),
                                   x, rois, batch);
                SCOPED_TRACE(ctm + " " + mode + " sampling " + std::to_string(sampling));
                auto g = migx_test::expect_gpu_matches_ref(p, 1e-4, 1e-4);
#ifdef MIGRAPHX_HAVE_GPU
                EXPECT_EQ(sized_fallbacks_that_ran(g, {"roialign"}), 1u) << g;
#endif
            }
}

namespace {

/// An SSD head's per-class step as torchvision exports it: the scores above a threshold
/// (nonzero), gathered (GatherND) with their boxes, the best min(cap, count) of them (TopK, k
/// computed from the count: Shape, Gather, Concat with the cap, ReduceMin), their boxes gathered.
migraphx::program ssd_class_step(shape::type_t t, std::int64_t cap)
{
    migraphx::program p;
    auto* m     = p.get_main_module();
    auto scores = m->add_parameter("scores", shape{t, {64}});
    auto boxes  = m->add_parameter("boxes", shape{t, {64, 4}});
    auto thresh = m->add_instruction(make_op("multibroadcast", {{"out_lens", {64}}}),
                                     m->add_literal(migraphx::literal{shape{t}, {0.3f}}));
    auto keep   = m->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}),
                                   m->add_instruction(make_op("nonzero"),
                                                      m->add_instruction(make_op("greater"), scores, thresh)));
    auto kept_scores = m->add_instruction(make_op("gathernd"), scores, keep);
    auto kept_boxes  = m->add_instruction(make_op("gathernd"), boxes, keep);
    auto count = m->add_instruction(make_op("dimensions_of", {{"start", 0}, {"end", 1}}), kept_scores);
    auto both  = m->add_instruction(make_op("concat", {{"axis", 0}}), i64_literal(*m, {cap}), count);
    auto k     = m->add_instruction(make_op("reduce_min", {{"axes", {0}}}), both);
    auto top   = m->add_instruction(make_op("topk", {{"k", cap}, {"axis", 0}, {"largest", true}}), kept_scores, k);
    auto vals  = m->add_instruction(make_op("get_tuple_elem", {{"index", 0}}), top);
    auto idx   = m->add_instruction(make_op("get_tuple_elem", {{"index", 1}}), top);
    auto picked = m->add_instruction(make_op("gather", {{"axis", 0}}), kept_boxes, idx);
    m->add_return({vals, idx, picked});
    return p;
}

} // namespace

// Each run its own count (the second input set keeps more scores): the kept scores and boxes
// (GatherND), their topk with a k the host computed (read from its note, no copy back) and the
// boxes it picks run on the device and match ref; fewer kept scores than the cap, and more.
TEST(gpu_device_sized, ssd_class_step_gathernd_and_topk_at_run_time_sizes)
{
    MIGX_REQUIRE_GPU();
    for(std::int64_t cap : {5, 40})
    {
        auto p = ssd_class_step(shape::float_type, cap);
        SCOPED_TRACE("cap " + std::to_string(cap));
        auto g = migx_test::expect_gpu_matches_ref(p, 0, 0);
#ifdef MIGRAPHX_HAVE_GPU
        // the nonzero of the scores (a static input) in two halves (gpu::early_nonzero)
        EXPECT_EQ(sized_fallbacks_that_ran(g, {"nonzero", "gathernd", "topk", "gather"}), 4u) << g;
        EXPECT_EQ(migx_test::occurrences(migx_test::text(g), "gpu::nonzero_finish"), 1u) << g;
        for(auto it = g.get_main_module()->begin(); it != g.get_main_module()->end(); ++it)
            if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>())
                if(f->op.name() == "topk" or f->op.name() == "reduce_min" or f->op.name() == "concat")
                    EXPECT_GT(f->noted_reads->load(), 0u) << f->op.name() << " copied a size back";
#endif
    }
    auto h = ssd_class_step(shape::half_type, 8);
    migx_test::expect_gpu_matches_ref(h, 0, 0);
}

// NonZero on the device: floats with -0 (zero) and NaN (nonzero), a transposed (strided) input,
// integers, a bool mask; each run's count differs (the second input set).
TEST(gpu_device_sized, nonzero_counts_and_places_on_the_device)
{
    MIGX_REQUIRE_GPU();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for(bool transposed : {false, true})
    {
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {6, 5}});
        if(transposed)
            x = m->add_instruction(make_op("transpose", {{"permutation", {1, 0}}}), x);
        m->add_return({m->add_instruction(make_op("nonzero"), x)});
        std::vector<float> v(30, 0.0f);
        for(std::size_t i = 0; i < v.size(); i += 3)
            v[i] = static_cast<float>(i) - 9.0f; // 0 at i = 9
        v[1] = -0.0f;
        v[4] = nan;
        v[29] = 2.5f;
        migraphx::parameter_map params{{"x", migraphx::literal{shape{shape::float_type, {6, 5}}, v}.get_argument()}};
        SCOPED_TRACE(transposed ? "transposed" : "standard");
        auto g = migx_test::expect_gpu_matches_ref(p, params, 0, 0);
#ifdef MIGRAPHX_HAVE_GPU
        // of a parameter: the kernel in gpu::nonzero_start, the count read in gpu::nonzero_finish
        EXPECT_EQ(migx_test::occurrences(migx_test::text(g), "gpu::nonzero_start"), 1u) << g;
        EXPECT_EQ(sized_fallbacks_that_ran(g, {"nonzero"}), 0u) << g;
#endif
    }
    migraphx::program b;
    auto* m  = b.get_main_module();
    auto big = m->add_parameter("x", shape{shape::int32_type, {3, 70, 50}}); // more than a tile of 1024
    m->add_return({m->add_instruction(make_op("nonzero"), big)});
    std::vector<std::int32_t> iv(3 * 70 * 50);
    for(std::size_t i = 0; i < iv.size(); i++)
        iv[i] = (i * 7919) % 5 == 0 ? static_cast<std::int32_t>(i) : 0;
    migx_test::expect_gpu_matches_ref(
        b, {{"x", migraphx::literal{shape{shape::int32_type, {3, 70, 50}}, iv}.get_argument()}}, 0, 0);
}

#ifdef MIGRAPHX_HAVE_GPU
// Without a device: which ops the lowering marks for the device, and which it leaves on the host.
TEST(gpu_device_sized_no_device, the_lowering_marks_the_ops_with_a_device_form)
{
    auto p = multiscale_roialign(shape::float_type);
    migraphx::run_passes(p, migraphx::gpu::passes_before_device(true));
    std::map<std::string, std::size_t> marked, host, host_value, sizes_known, host_only;
    const auto& m = *p.get_main_module();
    for(auto it = m.begin(); it != m.end(); ++it)
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>())
        {
            (f->rows_on_device ? marked : host)[f->op.name()]++;
            if(f->host_value)
                host_value[f->op.name()]++;
            if(f->host_only)
                host_only[f->op.name()]++;
            // Expand/Reshape whose sizes (input 1) the host notes: a Shape, a literal, a concat of those
            if(std::count(f->known_inputs.begin(), f->known_inputs.end(), 1u) > 0)
                sizes_known[f->op.name()]++;
        }
    EXPECT_EQ(marked["roialign"], 2u);
    EXPECT_EQ(marked["scatter_none"], 2u);
    EXPECT_EQ(marked["broadcast_with_dims"], 3u);
    EXPECT_EQ(marked["reshape_with_dims"], 3u);
    EXPECT_EQ(marked["concat"], 1u); // the boxes' columns; the concat of sizes is computed on the host
    EXPECT_EQ(marked["dimensions_of"], 3u);
    EXPECT_EQ(host_value["dimensions_of"], 3u);
    EXPECT_EQ(host_value["concat"], 1u);
    EXPECT_EQ(host["concat"], 1u);
    EXPECT_EQ(host_value.size(), 2u) << "sizes only";
    // every one of them read from its note only (Expand's sizes, a concat of sizes): no launch writes them
    EXPECT_EQ(host_only, host_value);
    // printed as such (the concat of sizes; Shape prints its device form once finalized)
    std::ostringstream printed;
    printed << p;
    EXPECT_EQ(migx_test::occurrences(printed.str(), "{size on host}"), 4u) << printed.str();
    EXPECT_EQ(sizes_known["broadcast_with_dims"], 3u);
    EXPECT_EQ(sizes_known["reshape_with_dims"], 3u);
    EXPECT_EQ(host["roialign"] + host["scatter_none"] + host["broadcast_with_dims"] + host["reshape_with_dims"], 0u);
    // counted and placed on the device, the count read back; that of the parameter c in two
    // halves (gpu::early_nonzero), the two of the kept boxes' scores (data-dependent) as one op
    EXPECT_EQ(marked["nonzero"], 2u);
    EXPECT_EQ(host["nonzero"], 0u);
    EXPECT_EQ(migx_test::occurrences(printed.str(), "gpu::nonzero_start"), 1u) << printed.str();
    EXPECT_EQ(migx_test::occurrences(printed.str(), "gpu::nonzero_finish"), 1u) << printed.str();
}

// A size the host computes but something reads on the device (here: an output, copied back; and
// an elementwise kernel's operand) is still written by a launch; one read only from the note is not.
TEST(gpu_device_sized_no_device, sizes_read_on_the_device_are_still_written)
{
    migraphx::program p;
    auto* m    = p.get_main_module();
    auto c     = m->add_parameter("c", shape{shape::float_type, {8}});
    auto keep  = squeezed_nonzero(*m, c);
    auto n     = m->add_instruction(make_op("dimensions_of", {{"start", 0}, {"end", 1}}), keep);
    auto twice = m->add_instruction(make_op("add"), n, n); // a size computed from a size: on the host
    auto big   = m->add_instruction(make_op("mul"), m->add_instruction(make_op("convert", {{"target_type", shape::int64_type}}),
                                                                   m->add_parameter("k", shape{shape::float_type, {1}})),
                                    twice); // reads twice on the device (k is not known on the host)
    auto wide  = m->add_instruction(make_op("broadcast_with_dims", {{"out_lens", {8}}}), c, twice);
    m->add_return({n, big, wide});
    migraphx::run_passes(p, migraphx::gpu::passes_before_device(true));
    std::map<std::string, std::pair<std::size_t, std::size_t>> marks; // op: host_value, host_only
    const auto& mm = *p.get_main_module();
    for(auto it = mm.begin(); it != mm.end(); ++it)
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>(); f != nullptr and f->host_value)
        {
            marks[f->op.name()].first++;
            marks[f->op.name()].second += f->host_only ? 1 : 0;
        }
    EXPECT_EQ(marks["dimensions_of"], std::make_pair(std::size_t{1}, std::size_t{0})) << p; // an output
    EXPECT_EQ(marks["pointwise"].first, 1u) << p;
    EXPECT_EQ(marks["pointwise"].second, 0u) << p; // the mul reads it on the device
}

TEST(gpu_device_sized_no_device, device_forms_exist_for_what_their_kernels_take)
{
    using migraphx::gpu::has_sized_device_op;
    shape x{shape::float_type, {1, 3, 8, 8}}, rois{shape::float_type, {5, 4}}, bi{shape::int64_type, {5}};
    shape ra{shape::float_type, {5, 3, 2, 2}};
    auto roialign = make_op("roialign", {{"output_height", 2}, {"output_width", 2}});
    EXPECT_TRUE(has_sized_device_op(roialign, {x, rois, bi}, ra));
    EXPECT_TRUE(has_sized_device_op(roialign, {x.with_type(shape::half_type), rois.with_type(shape::half_type), bi},
                                    ra.with_type(shape::half_type)));
    EXPECT_FALSE(has_sized_device_op(roialign, {x.with_type(shape::double_type), rois.with_type(shape::double_type), bi},
                                     ra.with_type(shape::double_type)));
    EXPECT_FALSE(has_sized_device_op(roialign, {x, rois, bi.with_type(shape::float_type)}, ra));
    shape d{shape::float_type, {8, 3}}, ind{shape::int64_type, {5, 3}}, upd{shape::float_type, {5, 3}};
    EXPECT_TRUE(has_sized_device_op(make_op("scatter_none", {{"axis", 0}}), {d, ind, upd}, d));
    EXPECT_FALSE(has_sized_device_op(make_op("scatter_add", {{"axis", 0}}), {d, ind, upd}, d)); // no atomics yet
    EXPECT_FALSE(has_sized_device_op(make_op("scatter_none", {{"axis", 0}}), {d, upd, upd}, d)); // float indices
    EXPECT_TRUE(has_sized_device_op(make_op("gather", {{"axis", -1}}), {d, shape{shape::int32_type, {2}}},
                                    shape{shape::float_type, {8, 2}}));
    EXPECT_FALSE(has_sized_device_op(make_op("gather", {{"axis", 2}}), {d, shape{shape::int32_type, {2}}},
                                     shape{shape::float_type, {8, 2}}));
    shape nine{shape::float_type, std::vector<std::size_t>(9, 1)};
    EXPECT_FALSE(has_sized_device_op(make_op("concat", {{"axis", 0}}), {nine, nine}, nine)); // past 8 dims
    EXPECT_TRUE(has_sized_device_op(make_op("broadcast_with_dims", {{"out_lens", {8, 3}}}),
                                    {shape{shape::float_type}, shape{shape::int64_type, {2}}}, d));
    EXPECT_FALSE(has_sized_device_op(make_op("broadcast_with_dims", {{"out_lens", {8, 3}}}),
                                     {shape{shape::float_type}, shape{shape::float_type, {2}}}, d));
    EXPECT_TRUE(has_sized_device_op(make_op("reshape_with_dims", {{"dims", {24}}}),
                                    {d, shape{shape::int32_type, {1}}}, shape{shape::float_type, {24}}));
    // topk: float or half values, k from the attribute or an index input, a tuple result
    shape tk{std::vector<shape>{shape{shape::float_type, {8, 2}}, shape{shape::int64_type, {8, 2}}}};
    auto topk2 = make_op("topk", {{"k", 2}, {"axis", 1}});
    EXPECT_TRUE(has_sized_device_op(topk2, {d}, tk));
    EXPECT_TRUE(has_sized_device_op(topk2, {d, shape{shape::int64_type, {1}}}, tk));
    EXPECT_FALSE(has_sized_device_op(topk2, {d, shape{shape::float_type, {1}}}, tk));
    EXPECT_FALSE(has_sized_device_op(topk2, {d.with_type(shape::int32_type)}, tk));
    EXPECT_FALSE(has_sized_device_op(make_op("topk", {{"k", 5000}}), {shape{shape::float_type, {9000}}},
                                     shape{std::vector<shape>{shape{shape::float_type, {5000}},
                                                              shape{shape::int64_type, {5000}}}})); // past the sort
    // gathernd with batch_dims 0, tuples of up to 8 indices
    EXPECT_TRUE(has_sized_device_op(make_op("gathernd"), {d, shape{shape::int64_type, {5, 1}}},
                                    shape{shape::float_type, {5, 3}}));
    EXPECT_FALSE(has_sized_device_op(make_op("gathernd", {{"batch_dims", 1}}), {d, shape{shape::int64_type, {8, 1}}},
                                     shape{shape::float_type, {8}}));
    EXPECT_FALSE(has_sized_device_op(make_op("gathernd"), {d, shape{shape::float_type, {5, 1}}},
                                     shape{shape::float_type, {5, 3}}));
    EXPECT_TRUE(has_sized_device_op(make_op("dimensions_of", {{"start", 0}, {"end", 2}}), {d},
                                    shape{shape::int64_type, {2}}));
    shape rank9{shape::float_type, std::vector<std::size_t>(9, 1)};
    EXPECT_FALSE(has_sized_device_op(make_op("dimensions_of", {{"start", 0}, {"end", 9}}), {rank9},
                                     shape{shape::int64_type, {9}})); // one launch writes 8 at most
}
#endif
