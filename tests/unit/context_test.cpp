// include/migraphx/context.hpp: a target context's optional hooks. end_finalize is a no-op for a
// context without it, and program::finalize (compile, load) calls it once, after every op's
// finalize, so a target can finish there what its ops' finalize only queued. begin_run's token is
// held from before a run's first op until after its finish.
#include <migraphx/context.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

using migraphx::shape;

namespace {

struct event_log
{
    std::vector<std::string> events;
};

struct plain_context
{
};

struct hooked_context
{
    std::shared_ptr<event_log> log = std::make_shared<event_log>();
    void end_finalize() { log->events.push_back("end_finalize"); }
    migraphx::value to_value() const { return migraphx::value::object{{"kept", "by the compiling context"}}; }
    void from_value(const migraphx::value& v) { log->events.push_back("from_value " + v.to_json()); }
};

/// Records its finalize in the context's log.
struct noting_op
{
    std::string tag;
    std::string name() const { return "test::noting_op"; }
    shape compute_shape(const std::vector<shape>& inputs) const { return inputs.front(); }
    migraphx::argument compute(migraphx::context&, const shape&, const std::vector<migraphx::argument>& args) const
    {
        return args.front();
    }
    void finalize(migraphx::context& ctx, const shape&, const std::vector<shape>&)
    {
        ctx.get<hooked_context>().log->events.push_back("finalize " + tag);
    }
};

struct hooked_target
{
    hooked_context ctx;
    std::string name() const { return "test-hooked"; }
    std::vector<migraphx::pass> get_passes(migraphx::context&, const migraphx::compile_options&) const { return {}; }
    migraphx::context get_context() const { return ctx; }
};

} // namespace

TEST(context, end_finalize_is_a_no_op_without_the_hook)
{
    migraphx::context c{plain_context{}};
    EXPECT_NO_THROW(c.end_finalize());
    migraphx::context empty;
    EXPECT_NO_THROW(empty.end_finalize());
}

TEST(context, end_finalize_reaches_the_concrete_context)
{
    hooked_context h;
    migraphx::context c{h};
    c.end_finalize();
    c.end_finalize();
    EXPECT_EQ(h.log->events, (std::vector<std::string>{"end_finalize", "end_finalize"}));
}

TEST(context, to_value_and_from_value_are_optional)
{
    migraphx::context c{plain_context{}};
    EXPECT_TRUE(c.to_value().is_null());
    EXPECT_NO_THROW(c.from_value(migraphx::value::object{{"a", 1}}));
    migraphx::context empty;
    EXPECT_TRUE(empty.to_value().is_null());
    EXPECT_NO_THROW(empty.from_value({}));
}

TEST(context, to_value_and_from_value_reach_the_concrete_context)
{
    hooked_context h;
    migraphx::context c{h};
    EXPECT_EQ(c.to_value().at("kept").get_string(), "by the compiling context");
    c.from_value(migraphx::value::object{{"x", 2}});
    ASSERT_EQ(h.log->events.size(), 1u);
    EXPECT_EQ(h.log->events[0].rfind("from_value ", 0), 0u);
    EXPECT_NE(h.log->events[0].find("\"x\""), std::string::npos) << h.log->events[0];
}

TEST(context, compile_calls_end_finalize_once_after_every_op_finalize)
{
    hooked_target t;
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2}});
    auto a  = m->add_instruction(migraphx::operation{noting_op{"a"}}, x);
    m->add_instruction(migraphx::operation{noting_op{"b"}}, a);
    p.compile(t);
    EXPECT_EQ(t.ctx.log->events, (std::vector<std::string>{"finalize a", "finalize b", "end_finalize"}));
}

namespace {

/// Notes a run's turn: begin_run, the ops' computes, finish, the token's release.
struct turn_context
{
    std::shared_ptr<event_log> log = std::make_shared<event_log>();
    void finish() { log->events.push_back("finish"); }
    std::shared_ptr<void> begin_run()
    {
        log->events.push_back("begin_run");
        auto l = log;
        return std::shared_ptr<void>(log.get(), [l](void*) { l->events.push_back("released"); });
    }
};

struct computing_op
{
    std::string name() const { return "test::computing_op"; }
    shape compute_shape(const std::vector<shape>& inputs) const { return inputs.front(); }
    migraphx::argument compute(migraphx::context& ctx, const shape&, const std::vector<migraphx::argument>& args) const
    {
        ctx.get<turn_context>().log->events.push_back("compute");
        return args.front();
    }
};

struct turn_target
{
    turn_context ctx;
    std::string name() const { return "test-turns"; }
    std::vector<migraphx::pass> get_passes(migraphx::context&, const migraphx::compile_options&) const { return {}; }
    migraphx::context get_context() const { return ctx; }
};

} // namespace

TEST(context, begin_run_is_null_without_the_hook)
{
    migraphx::context c{plain_context{}};
    EXPECT_EQ(c.begin_run(), nullptr);
    EXPECT_EQ(migraphx::context{}.begin_run(), nullptr);
}

TEST(context, a_run_holds_its_turn_from_before_the_first_op_until_after_finish)
{
    turn_target t;
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {2}});
    m->add_return({m->add_instruction(migraphx::operation{computing_op{}}, x)});
    p.compile(t);
    t.ctx.log->events.clear();
    std::vector<float> d{1, 2};
    p.eval({{"x", migraphx::argument{shape{shape::float_type, {2}}, d.data()}}});
    EXPECT_EQ(t.ctx.log->events, (std::vector<std::string>{"begin_run", "compute", "finish", "released"}));
}
