// gpu::early_nonzero: a nonzero of a static input runs in two halves, the starts (kernel, count
// copied back, event) moved up to the first nonzero with the kernels computing their inputs, the
// finishes (wait, read the count) where the nonzeros were. Before/after without a device; on
// one, the results are ref's at every count (none, some, all), in both offload modes and replays.
#include "gpu_test_util.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#ifdef MIGRAPHX_HAVE_GPU
#include "passes/pass_manager.hpp"
#include "targets/gpu/early_nonzero.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/lowering.hpp"
#include <migraphx/instruction.hpp>
#include <unordered_map>
#endif

using migraphx::make_op;
using migraphx::shape;

namespace {

/// An SSD head's shape of problem: scores [6 anchors, 3 classes]; for each class the anchors
/// whose score passes 0.5 (nonzero of score > 0.5: a static input) and their scores gathered
/// (data-dependent), and a nonzero of those (a data-dependent input: stays one op); the kept
/// scores of all classes concatenated.
migraphx::program per_class_nonzeros()
{
    migraphx::program p;
    auto* m     = p.get_main_module();
    auto scores = m->add_parameter("scores", shape{shape::float_type, {6, 3}});
    auto thresh = m->add_instruction(make_op("multibroadcast", {{"out_lens", {6}}}),
                                     m->add_literal(migraphx::literal{shape{shape::float_type}, {0.5f}}));
    std::vector<migraphx::instruction_ref> outs, kept_all;
    for(std::int64_t c = 0; c < 3; c++)
    {
        auto col  = m->add_instruction(make_op("gather", {{"axis", 1}}), scores,
                                      m->add_literal(migraphx::literal{shape{shape::int64_type}, {c}}));
        auto nz   = m->add_instruction(make_op("nonzero"), m->add_instruction(make_op("greater"), col, thresh));
        auto kept = m->add_instruction(make_op("gather", {{"axis", 0}}), col,
                                       m->add_instruction(make_op("squeeze", {{"axes", {0}}}), nz));
        outs.insert(outs.end(), {nz, kept, m->add_instruction(make_op("nonzero"), kept)});
        kept_all.push_back(kept);
    }
    // as SSD gathers its classes' results: one concat of data-dependent parts (some empty)
    outs.push_back(m->add_instruction(make_op("concat", {{"axis", 0}}), kept_all));
    m->add_return(outs);
    return p;
}

migraphx::parameter_map scores_all(float v)
{
    return {{"scores", migraphx::literal{shape{shape::float_type, {6, 3}}, std::vector<float>(18, v)}.get_argument()}};
}

} // namespace

#ifdef MIGRAPHX_HAVE_GPU
namespace {

struct census
{
    std::size_t ref_nonzero = 0, starts = 0, finishes = 0;
    bool ordered = true;               // every input before its user
    bool starts_before_finishes = true; // every start before the first finish
    std::vector<std::size_t> start_slots, finish_slots, finish_input_slots;
    std::vector<std::string> start_inputs; // the names of each start's inputs
};

census count(const migraphx::program& p)
{
    census c;
    std::unordered_map<const migraphx::instruction*, std::size_t> at;
    const auto& m = *p.get_main_module();
    std::size_t i = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
        at[&*it] = i++;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        for(auto x : it->inputs())
            c.ordered = c.ordered and at.at(&*x) < at.at(&*it);
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>(); f and f->op.name() == "nonzero")
            c.ref_nonzero++;
        if(const auto* s = it->get_operator().any_cast<migraphx::gpu::nonzero_start>())
        {
            c.starts++;
            c.starts_before_finishes = c.starts_before_finishes and c.finishes == 0;
            c.start_slots.push_back(s->slot);
            std::string names;
            for(auto x : it->inputs())
                names += (names.empty() ? "" : " ") + x->name();
            c.start_inputs.push_back(names);
        }
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::nonzero_finish>())
        {
            c.finishes++;
            c.finish_slots.push_back(f->slot);
            const auto* s = it->inputs().at(0)->get_operator().any_cast<migraphx::gpu::nonzero_start>();
            c.finish_input_slots.push_back(s ? s->slot : 999);
        }
    }
    return c;
}

} // namespace

TEST(gpu_early_nonzero_no_device, static_nonzeros_split_and_all_starts_come_before_the_first_finish)
{
    auto passes = migraphx::gpu::passes_before_device(true);
    ASSERT_EQ(passes.back().name(), "gpu::early_nonzero");
    passes.pop_back();
    auto before = per_class_nonzeros();
    migraphx::run_passes(before, passes);
    auto b = count(before);
    EXPECT_EQ(b.ref_nonzero, 6u) << before;
    EXPECT_EQ(b.starts + b.finishes, 0u);

    auto after = before;
    migraphx::run_passes(after, {migraphx::gpu::early_nonzero{}});
    auto a = count(after);
    EXPECT_EQ(a.ref_nonzero, 3u) << after; // of the kept scores: one op, as before
    EXPECT_EQ(a.starts, 3u) << after;
    EXPECT_EQ(a.finishes, 3u);
    EXPECT_TRUE(a.ordered) << after;
    EXPECT_TRUE(a.starts_before_finishes) << after;
    EXPECT_EQ(a.start_slots, (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(a.finish_slots, a.finish_input_slots) << "a finish reads its own start";
    for(const auto& names : a.start_inputs)
        EXPECT_EQ(names, "gpu::code_object hip::hip_allocate_memory") << after; // the compare, its buffer
    EXPECT_NE(migx_test::text(after).find("gpu::nonzero_start[slot=2]"), std::string::npos) << after;
}

TEST(gpu_early_nonzero_no_device, a_program_without_a_static_nonzero_is_left_as_it_is)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {4}});
    m->add_return({m->add_instruction(make_op("relu"), x)});
    auto passes = migraphx::gpu::passes_before_device(true);
    migraphx::run_passes(p, passes);
    auto want = migx_test::text(p);
    migraphx::run_passes(p, {migraphx::gpu::early_nonzero{}});
    EXPECT_EQ(migx_test::text(p), want);
}
#endif

TEST(gpu_early_nonzero, per_class_nonzeros_match_ref_at_every_count)
{
    MIGX_REQUIRE_GPU();
    auto p = per_class_nonzeros();
    // scores at, under and over the threshold (the other set, 0.5 x + 0.25, keeps other counts)
    auto g = migx_test::expect_gpu_matches_ref(
        p, migx_test::drawn_from(shape{shape::float_type, {6, 3}}, {0, 0.1f, 0.5f, 0.6f, 0.9f, 1}, 7, "scores"), 0, 0);
    EXPECT_EQ(migx_test::occurrences(migx_test::text(g), "gpu::nonzero_start"), 3u) << g;
#ifdef MIGRAPHX_HAVE_GPU
    // the concat of the classes' kept scores ran on the device (one launch: sized_concat)
    std::size_t concats = 0;
    for(auto it = g.get_main_module()->begin(); it != g.get_main_module()->end(); ++it)
        if(const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>(); f and f->op.name() == "concat")
        {
            concats++;
            EXPECT_GT(f->device_runs->load(), 0u) << "the concat ran on the host";
        }
    EXPECT_EQ(concats, 1u) << g;
#endif
    migx_test::expect_gpu_matches_ref(p, scores_all(0), 0, 0); // no hits (0, then 0.25)
    migx_test::expect_gpu_matches_ref(p, scores_all(1), 0, 0); // all (1, then 0.75)
    auto r = g.eval(scores_all(0));
    ASSERT_EQ(r.size(), 10u);
    EXPECT_EQ(r[0].get_shape().lens(), (std::vector<std::size_t>{1, 0}));
    r = g.eval(scores_all(1));
    EXPECT_EQ(r[0].get_shape().lens(), (std::vector<std::size_t>{1, 6}));
}
