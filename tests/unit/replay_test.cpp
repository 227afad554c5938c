// ir/replay: segments of replayable instructions are run plainly once, recorded on their second
// run and replayed after; a recording fits only the pointers and shapes it was made with. A
// host-side fake context stands in for CUDA graphs: its "queue" is a list of closures that an
// op either runs now or, while recording, appends to the recording.
#include "ir/replay.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

namespace {

using migraphx::shape;

struct fake_recording
{
    std::vector<std::function<void()>> work;
};

struct fake_context
{
    std::shared_ptr<fake_recording> recording; // set while recording
    std::shared_ptr<int> launches = std::make_shared<int>(0);
    std::shared_ptr<int> replays  = std::make_shared<int>(0);
    bool fail_recording           = false;

    void enqueue(std::function<void()> f)
    {
        if(recording)
            recording->work.push_back(std::move(f));
        else
        {
            (*launches)++;
            f();
        }
    }
    bool replayable(const migraphx::instruction& ins) const
    {
        return ins.name() == "test::scale" or ins.name() == "test::sync" or ins.name() == "get_tuple_elem";
    }
    std::shared_ptr<void> record(const std::function<void()>& run)
    {
        recording = std::make_shared<fake_recording>();
        auto r    = recording;
        try
        {
            run();
        }
        catch(...)
        {
            recording = nullptr;
            throw;
        }
        recording = nullptr;
        if(fail_recording)
            MIGRAPHX_THROW("fake: cannot record");
        return r;
    }
    void replay(const std::shared_ptr<void>& r)
    {
        (*replays)++;
        for(auto& f : static_cast<fake_recording*>(r.get())->work)
            f();
    }
};

/// (x, out) -> out = k * x, "queued" on the fake context; writes its last input.
struct scale
{
    float k = 2;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.k, "k");
    }
    std::string name() const { return "test::scale"; }
    shape compute_shape(const std::vector<shape>& inputs) const { return inputs.at(1); }
    migraphx::argument compute(migraphx::context& ctx, const shape&, const std::vector<migraphx::argument>& args) const
    {
        auto& c   = ctx.get<fake_context>();
        auto* x   = reinterpret_cast<const float*>(args[0].data());
        auto* y   = reinterpret_cast<float*>(args[1].data());
        auto n    = args[0].get_shape().elements();
        auto kk   = k;
        c.enqueue([=] {
            for(std::size_t i = 0; i < n; i++)
                y[i] = kk * x[i];
        });
        return args[1];
    }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 1; }
};

/// (x, out) -> out = x, but "synchronises": it fails while the context records.
struct sync_copy
{
    std::string name() const { return "test::sync"; }
    shape compute_shape(const std::vector<shape>& inputs) const { return inputs.at(1); }
    migraphx::argument compute(migraphx::context& ctx, const shape&, const std::vector<migraphx::argument>& args) const
    {
        auto& c = ctx.get<fake_context>();
        if(c.recording)
            MIGRAPHX_THROW("test::sync: cannot synchronise while recording");
        (*c.launches)++;
        std::copy_n(args[0].data(), args[0].get_shape().bytes(), args[1].data());
        return args[1];
    }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 1; }
};

/// x -> a tuple of one element: x copied into one of two buffers, the other each run (as a host
/// fallback's tuple lands in fresh memory). Not replayable.
struct tuple_of_copy
{
    std::shared_ptr<std::vector<migraphx::argument>> pool = std::make_shared<std::vector<migraphx::argument>>();
    std::shared_ptr<int> runs                             = std::make_shared<int>(0);
    std::string name() const { return "test::tuple_of_copy"; }
    shape compute_shape(const std::vector<shape>& inputs) const { return shape{std::vector<shape>{inputs.at(0)}}; }
    migraphx::argument compute(migraphx::context&, const shape&, const std::vector<migraphx::argument>& args) const
    {
        if(pool->empty())
            *pool = {migraphx::argument{args[0].get_shape()}, migraphx::argument{args[0].get_shape()}};
        auto& to = (*pool)[static_cast<std::size_t>((*runs)++ % 2)];
        std::copy_n(args[0].data(), args[0].get_shape().bytes(), to.data());
        return migraphx::argument{std::vector<migraphx::argument>{to}};
    }
};

struct fake_target
{
    std::shared_ptr<fake_context> ctx = std::make_shared<fake_context>();
    std::string name() const { return "fake"; }
    std::vector<migraphx::pass> get_passes(migraphx::context&, const migraphx::compile_options&) const { return {}; }
    migraphx::context get_context() const { return *ctx; }
};

/// x -> scale 2 -> scale 3 into buffers that are parameters (as a device program's would be);
/// with `add_after`, the program returns the two scales' sum, made outside the recordings; with
/// `through_tuple`, x reaches the first scale through tuple_of_copy and get_tuple_elem.
migraphx::program two_scales(bool add_after = false, bool through_tuple = false)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    shape s{shape::float_type, {4}};
    auto x  = m->add_parameter("x", s);
    auto b1 = m->add_parameter("b1", s);
    auto b2 = m->add_parameter("b2", s);
    if(through_tuple)
        x = m->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 0}}),
                               m->add_instruction(migraphx::operation{tuple_of_copy{}}, x));
    auto a  = m->add_instruction(migraphx::operation{scale{2}}, x, b1);
    auto b  = m->add_instruction(migraphx::operation{scale{3}}, a, b2);
    m->add_return({add_after ? m->add_instruction(migraphx::make_op("add"), a, b) : b}); // add: not replayable
    return p;
}

migraphx::argument filled(float v)
{
    migraphx::argument a{shape{shape::float_type, {4}}};
    for(std::size_t i = 0; i < 4; i++)
        reinterpret_cast<float*>(a.data())[i] = v + static_cast<float>(i);
    return a;
}

fake_context& ctx_of(const migraphx::program& p) { return p.get_context().get<fake_context>(); }

} // namespace

TEST(replay, segments_are_maximal_runs_of_replayable_instructions)
{
    auto p = two_scales();
    p.compile(fake_target{});
    auto segs = migraphx::find_replay_segments(*p.get_main_module(), p.get_context());
    ASSERT_EQ(segs.size(), 1u);
    EXPECT_EQ(segs[0].begin->name(), "test::scale");
    EXPECT_EQ(std::distance(segs[0].begin, segs[0].end), 2);
    // Its inputs from outside: x, b1, b2 (each once).
    EXPECT_EQ(segs[0].inputs.size(), 3u);
    // Its outputs: only the second scale is read outside it (by @return); the first stays inside,
    // so a replay hands back one result, not one per instruction.
    ASSERT_EQ(segs[0].outputs.size(), 1u);
    EXPECT_EQ(segs[0].outputs[0], std::next(segs[0].begin));
    // A single instruction is not worth a recording by default.
    EXPECT_TRUE(migraphx::find_replay_segments(*p.get_main_module(), p.get_context(), 3).empty());
}

TEST(replay, first_run_plain_then_recorded_then_replayed_with_fresh_values)
{
    auto p = two_scales();
    p.compile(fake_target{});
    auto x  = filled(1);
    auto b1 = filled(0);
    auto b2 = filled(0);
    auto& c = ctx_of(p);
    for(int run = 0; run < 4; run++)
    {
        // New values in the same memory each run: a replay must compute them.
        for(std::size_t i = 0; i < 4; i++)
            reinterpret_cast<float*>(x.data())[i] = static_cast<float>(run * 10 + i);
        auto r = p.eval({{"x", x}, {"b1", b1}, {"b2", b2}});
        ASSERT_EQ(r.size(), 1u);
        for(std::size_t i = 0; i < 4; i++)
            EXPECT_FLOAT_EQ(reinterpret_cast<float*>(r[0].data())[i], 6.0f * static_cast<float>(run * 10 + i));
        EXPECT_EQ(r[0].data(), b2.data());
    }
    EXPECT_EQ(*c.launches, 2);  // the first run only
    EXPECT_EQ(*c.replays, 3);   // runs 2 (just recorded), 3 and 4
}

TEST(replay, other_pointers_get_their_own_recording)
{
    auto p = two_scales();
    p.compile(fake_target{});
    auto& c = ctx_of(p);
    auto x = filled(1), y = filled(5);
    auto b1 = filled(0), b2 = filled(0), b3 = filled(0);
    auto run = [&](const migraphx::argument& in, const migraphx::argument& out, float first) {
        auto r = p.eval({{"x", in}, {"b1", b1}, {"b2", out}});
        EXPECT_EQ(r[0].data(), out.data());
        EXPECT_FLOAT_EQ(reinterpret_cast<float*>(out.data())[0], 6.0f * first);
    };
    run(x, b2, 1); // plain
    run(y, b3, 5); // recorded for (y, b3)
    run(x, b3, 1); // recorded for (x, b3): b3 must change back
    run(y, b3, 5); // replay
    run(x, b3, 1); // replay
    EXPECT_EQ(*c.launches, 2);
    EXPECT_EQ(*c.replays, 4);
}

TEST(replay, a_segment_that_cannot_be_recorded_runs_plainly)
{
    auto p = two_scales();
    fake_target t;
    t.ctx->fail_recording = true;
    p.compile(t);
    auto& c = ctx_of(p);
    auto x = filled(1), b1 = filled(0), b2 = filled(0);
    for(int run = 0; run < 3; run++)
    {
        auto r = p.eval({{"x", x}, {"b1", b1}, {"b2", b2}});
        EXPECT_FLOAT_EQ(reinterpret_cast<float*>(r[0].data())[3], 6.0f * 4);
    }
    EXPECT_EQ(*c.launches, 6); // run 1 plain, run 2's failed recording then plain, run 3 plain
    EXPECT_EQ(*c.replays, 0);
}

TEST(replay, off_by_option_and_by_environment)
{
    auto x = filled(1), b1 = filled(0), b2 = filled(0);
    {
        auto p = two_scales();
        migraphx::compile_options o;
        o.cuda_graph = false;
        p.compile(fake_target{}, o);
        for(int run = 0; run < 3; run++)
            p.eval({{"x", x}, {"b1", b1}, {"b2", b2}});
        EXPECT_EQ(*ctx_of(p).launches, 6);
        EXPECT_EQ(*ctx_of(p).replays, 0);
    }
    {
        auto p = two_scales();
        p.compile(fake_target{});
        setenv("MIGRAPHX_DISABLE_CUDA_GRAPH", "1", 1);
        for(int run = 0; run < 3; run++)
            p.eval({{"x", x}, {"b1", b1}, {"b2", b2}});
        unsetenv("MIGRAPHX_DISABLE_CUDA_GRAPH");
        EXPECT_EQ(*ctx_of(p).launches, 6);
        EXPECT_EQ(*ctx_of(p).replays, 0);
    }
}

TEST(replay, inputs_that_move_every_run_stop_the_recording)
{
    auto p = two_scales();
    p.compile(fake_target{});
    auto& c = ctx_of(p);
    auto b1 = filled(0), b2 = filled(0);
    std::vector<migraphx::argument> kept; // alive, so that no run reuses another's memory
    for(int run = 0; run < 8; run++)
    {
        auto x = filled(static_cast<float>(run)); // fresh memory each run
        kept.push_back(x);
        auto r = p.eval({{"x", x}, {"b1", b1}, {"b2", b2}});
        EXPECT_FLOAT_EQ(reinterpret_cast<float*>(r[0].data())[0], 6.0f * static_cast<float>(run));
    }
    // run 1 plain; runs 2-4 recorded (and replayed once each); runs 5-8 plain
    EXPECT_EQ(*c.replays, 3);
    EXPECT_EQ(*c.launches, 2 + 4 * 2);
}

TEST(replay, an_instruction_that_cannot_be_recorded_is_left_out_and_the_rest_recorded)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    shape s{shape::float_type, {4}};
    auto x  = m->add_parameter("x", s);
    std::vector<migraphx::instruction_ref> b;
    for(int i = 0; i < 5; i++)
        b.push_back(m->add_parameter("b" + std::to_string(i), s));
    auto a  = m->add_instruction(migraphx::operation{scale{2}}, x, b[0]);
    auto y  = m->add_instruction(migraphx::operation{sync_copy{}}, a, b[1]);
    auto c1 = m->add_instruction(migraphx::operation{scale{3}}, y, b[2]);
    auto c2 = m->add_instruction(migraphx::operation{scale{5}}, c1, b[3]);
    m->add_return({c2});
    p.compile(fake_target{});
    auto& c = ctx_of(p);
    migraphx::parameter_map params{{"x", filled(1)}};
    for(int i = 0; i < 5; i++)
        params["b" + std::to_string(i)] = filled(0);
    std::vector<int> replays;
    for(int run = 0; run < 5; run++)
    {
        auto r = p.eval(params);
        EXPECT_FLOAT_EQ(reinterpret_cast<float*>(r[0].data())[2], 30.0f * 3);
        replays.push_back(*c.replays);
    }
    // 1: plain. 2: recording fails at test::sync -> plain. 3: segments found again without
    // it (scale | sync | scale scale): plain. 4: the two scales recorded. 5: replayed.
    EXPECT_EQ(replays, (std::vector<int>{0, 0, 0, 1, 2}));
}

// A replay hands back only the segment's outputs; a result of the segment read after it (by an
// instruction that runs outside the recordings) is one of them and holds the replayed values.
TEST(replay, a_result_read_after_the_segment_comes_back_from_the_replay)
{
    auto p = two_scales(true);
    p.compile(fake_target{});
    auto segs = migraphx::find_replay_segments(*p.get_main_module(), p.get_context());
    ASSERT_EQ(segs.size(), 1u);
    EXPECT_EQ(segs[0].outputs.size(), 2u); // a (read by add) and b
    auto xa = filled(1), ba = filled(0), bb = filled(0);
    for(int run = 0; run < 4; run++)
    {
        for(std::size_t i = 0; i < 4; i++)
            reinterpret_cast<float*>(xa.data())[i] = static_cast<float>(run + i);
        auto r = p.eval({{"x", xa}, {"b1", ba}, {"b2", bb}});
        ASSERT_EQ(r.size(), 1u);
        for(std::size_t i = 0; i < 4; i++) // 2x + 6x
            EXPECT_FLOAT_EQ(reinterpret_cast<float*>(r[0].data())[i], 8.0f * static_cast<float>(run + i));
    }
    EXPECT_GE(*ctx_of(p).replays, 2);
}

// A tuple's data() is null: the recording must be keyed by its elements' pointers, else a run
// whose tuple is in other memory replays one that reads the recorded run's memory.
TEST(replay, a_tuple_from_outside_is_keyed_by_its_elements)
{
    auto p = two_scales(false, true);
    p.compile(fake_target{});
    auto segs = migraphx::find_replay_segments(*p.get_main_module(), p.get_context());
    ASSERT_EQ(segs.size(), 1u);
    EXPECT_EQ(segs[0].begin->name(), "get_tuple_elem");
    auto xa = filled(0), ba = filled(0), bb = filled(0);
    for(int run = 0; run < 6; run++)
    {
        for(std::size_t i = 0; i < 4; i++)
            reinterpret_cast<float*>(xa.data())[i] = static_cast<float>(run * 10 + i);
        auto r = p.eval({{"x", xa}, {"b1", ba}, {"b2", bb}});
        for(std::size_t i = 0; i < 4; i++)
            EXPECT_FLOAT_EQ(reinterpret_cast<float*>(r.at(0).data())[i], 6.0f * static_cast<float>(run * 10 + i))
                << "run " << run;
    }
    // 1 plain, 2 and 3 recorded (one buffer each), then each replayed
    EXPECT_EQ(*ctx_of(p).replays, 5);
}

// A compiled module changed after its runs were recorded (possible through the module's API)
// is recorded again: a replay never runs the old work, nor walks removed instructions.
TEST(replay, a_changed_module_is_recorded_again)
{
    auto p = two_scales();
    p.compile(fake_target{});
    auto* mm = p.get_main_module();
    auto& c  = ctx_of(p);
    auto x = filled(1), b1 = filled(0), b2 = filled(0);
    auto run = [&] {
        auto r = p.eval({{"x", x}, {"b1", b1}, {"b2", b2}});
        return reinterpret_cast<float*>(r.at(0).data())[1];
    };
    for(int i = 0; i < 3; i++)
        EXPECT_FLOAT_EQ(run(), 6.0f * 2); // x[1] = 2, recorded and replayed
    EXPECT_EQ(*c.replays, 2);
    // the second scale changed in place (same inputs, same place): 2 * 5 from now on
    auto second = std::prev(mm->get_return());
    mm->replace_instruction(second, migraphx::operation{scale{5}}, second->inputs());
    for(int i = 0; i < 3; i++)
        EXPECT_FLOAT_EQ(run(), 10.0f * 2) << "run " << i;
    EXPECT_EQ(*c.replays, 4); // plain once more, then recorded and replayed
    // a third scale inserted before the return (into b1 again): 2 * 5 * 7
    auto third = mm->insert_instruction(mm->get_return(), migraphx::operation{scale{7}}, second,
                                        mm->get_parameter("b1"));
    mm->replace_return({third});
    for(int i = 0; i < 3; i++)
        EXPECT_FLOAT_EQ(run(), 70.0f * 2) << "run " << i;
    // the inserted scale removed again, the return back on the second: 2 * 5
    mm->replace_return({second});
    mm->remove_instruction(third);
    for(int i = 0; i < 3; i++)
        EXPECT_FLOAT_EQ(run(), 10.0f * 2) << "run " << i;
}
