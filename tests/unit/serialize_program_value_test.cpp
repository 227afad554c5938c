// program <-> value (src/serialize/program_value.cpp): the tree's layout, every registered op
// rebuilt from its attributes, and content errors named with their module and instruction.
#include <migraphx/ref/target.hpp>
#include <cstdint>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>
#include "serialize/msgpack_value.hpp"
#include "serialize/program_value.hpp"
#include "serialize_test_util.hpp"

using migraphx::serialize::literal_encoding;
using migraphx::serialize::program_from_value;
using migraphx::serialize::program_to_value;

namespace {

std::string load_error(const migraphx::value& v)
{
    try
    {
        program_from_value(v, 0);
    }
    catch(const migraphx::exception& e)
    {
        return e.what();
    }
    return "(no exception)";
}

migraphx::value::array& main_instructions(migraphx::value& v)
{
    return v["modules"].get_array().at(0)["instructions"].get_array();
}

migraphx::value* find_op(migraphx::value& v, const std::string& name)
{
    for(auto& i : main_instructions(v))
        if(i.at("op").get_string() == name)
            return &i;
    return nullptr;
}

} // namespace

TEST(serialize_program_value, layout)
{
    auto v = program_to_value(migx_test::small_cnn(), literal_encoding::raw);
    ASSERT_TRUE(v.is_object());
    EXPECT_EQ(v.at("compiled"), migraphx::value(false));
    EXPECT_EQ(v.at("target"), migraphx::value(""));
    EXPECT_EQ(v.at("output_names"), (migraphx::value{"prob", "logits"}));
    const auto& mods = v.at("modules").get_array();
    ASSERT_EQ(mods.size(), 1);
    EXPECT_EQ(mods[0].at("name"), migraphx::value("main"));
    auto* conv = find_op(v, "convolution");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->at("attrs").at("padding"), (migraphx::value{1, 1}));
    EXPECT_EQ(conv->at("inputs").size(), 2);
    auto* lit = find_op(v, "@literal");
    ASSERT_NE(lit, nullptr);
    EXPECT_EQ(lit->at("data").get_string().size(), 64 * 10 * sizeof(float)); // the last added comes first: fc
    auto* param = find_op(v, "@param");
    ASSERT_NE(param, nullptr);
    EXPECT_EQ(param->at("attrs").at("parameter"), migraphx::value("x"));
    auto b64 = program_to_value(migx_test::small_cnn(), literal_encoding::base64);
    EXPECT_TRUE(find_op(b64, "@literal")->contains("base64"));
}

TEST(serialize_program_value, submodules_by_name_and_inputs_across_modules)
{
    auto p = migx_test::with_submodules();
    auto v = program_to_value(p, literal_encoding::raw);
    ASSERT_EQ(v.at("modules").size(), 3);
    auto* iff = find_op(v, "if");
    ASSERT_NE(iff, nullptr);
    EXPECT_EQ(iff->at("modules"), (migraphx::value{"then_mod", "else_mod"}));
    // then_mod's exp reads main's x: global index 0 (add_parameter puts x before cond)
    EXPECT_EQ(v.at("modules").at(1).at("instructions").at(0).at("inputs"), (migraphx::value{0}));
    EXPECT_EQ(migx_test::to_string(program_from_value(v, 0)), migx_test::to_string(p));
}

// Every registered operator, with default attributes, is rebuilt equal from to_value(): the
// reflect list is all the state a saved op needs (the cpu target's ops included).
TEST(serialize_program_value, every_registered_op_round_trips)
{
    std::size_t n = 0;
    for(const auto& name : migraphx::get_operators())
    {
        auto op   = migraphx::make_op(name);
        auto back = migraphx::make_op(name, op.to_value());
        EXPECT_EQ(back, op) << name;
        EXPECT_EQ(back.attribute_string(), op.attribute_string()) << name;
        n++;
    }
    EXPECT_GT(n, 50);
}

// The ops a cpu compile emits, with the attributes it gives them.
TEST(serialize_program_value, compiled_cpu_ops_round_trip)
{
    if(not migx_test::have_target("cpu"))
        GTEST_SKIP() << "no cpu target in this build";
    auto p = migx_test::small_cnn();
    p.compile(migraphx::get_target("cpu"));
    std::set<std::string> names;
    for(const auto* m : p.get_modules())
        for(auto it = m->begin(); it != m->end(); ++it)
        {
            if(it->name().front() == '@')
                continue;
            names.insert(it->name());
            auto back = migraphx::make_op(it->name(), it->get_operator().to_value());
            EXPECT_EQ(back, it->get_operator()) << it->name();
        }
    EXPECT_TRUE(names.count("dnnl::convolution")) << "cpu lowering changed? ops: " << names.size();
}

TEST(serialize_program_value, compiled_program_is_finalized_not_compiled)
{
    auto p = migx_test::small_cnn();
    p.compile(migraphx::ref::target{});
    auto v = program_to_value(p, literal_encoding::raw);
    EXPECT_EQ(v.at("compiled"), migraphx::value(true));
    EXPECT_EQ(v.at("target"), migraphx::value("ref"));
    auto q = program_from_value(v, 0);
    EXPECT_TRUE(q.is_compiled());
    EXPECT_EQ(q.target_name(), "ref");
    EXPECT_EQ(migx_test::to_string(q), migx_test::to_string(p));
}

namespace {

/// A target whose context keeps something in a saved compiled program (context::to_value) and
/// notes what a loaded program's context is given back (from_value).
struct keeping_context
{
    std::shared_ptr<std::vector<std::string>> given = std::make_shared<std::vector<std::string>>();
    migraphx::value to_value() const { return migraphx::value::object{{"device", "test device 7"}}; }
    void from_value(const migraphx::value& v) { given->push_back(v.at("device").get_string()); }
};

struct keeping_target
{
    keeping_context ctx;
    std::string name() const { return "test-keeping-context"; }
    std::vector<migraphx::pass> get_passes(migraphx::context&, const migraphx::compile_options&) const { return {}; }
    migraphx::context get_context() const { return ctx; }
};

} // namespace

TEST(serialize_program_value, the_compiling_context_keeps_its_value_and_a_load_gives_it_back)
{
    keeping_target t;
    migraphx::register_target(t);
    migraphx::program p;
    auto* m = p.get_main_module();
    m->add_return({m->add_instruction(migraphx::make_op("relu"), m->add_parameter("x", {migraphx::shape::float_type, {2}}))});
    p.compile(t);
    auto v = program_to_value(p, literal_encoding::raw);
    ASSERT_TRUE(v.contains("context"));
    EXPECT_EQ(v.at("context").at("device").get_string(), "test device 7");
    auto q = program_from_value(v, 0);
    EXPECT_EQ(*t.ctx.given, std::vector<std::string>{"test device 7"});
    // a context that keeps nothing (ref) writes no "context"; an uncompiled program none either
    auto r = migx_test::small_cnn();
    EXPECT_FALSE(program_to_value(r, literal_encoding::raw).contains("context"));
    r.compile(migraphx::ref::target{});
    EXPECT_FALSE(program_to_value(r, literal_encoding::raw).contains("context"));
}

namespace {

/// A target that notes the compile_options each get_passes is given (compile, and a load's
/// restoring of the saved program's state).
struct options_noting_target
{
    std::shared_ptr<std::vector<migraphx::compile_options>> seen =
        std::make_shared<std::vector<migraphx::compile_options>>();
    std::string name() const { return "test-options-noting"; }
    std::vector<migraphx::pass> get_passes(migraphx::context&, const migraphx::compile_options& o) const
    {
        seen->push_back(o);
        return {};
    }
    migraphx::context get_context() const { return keeping_context{}; }
};

migraphx::program relu_program()
{
    migraphx::program p;
    auto* m = p.get_main_module();
    m->add_return({m->add_instruction(migraphx::make_op("relu"), m->add_parameter("x", {migraphx::shape::float_type, {2}}))});
    return p;
}

} // namespace

TEST(serialize_program_value, compile_options_are_saved_and_given_back_to_the_target_on_load)
{
    options_noting_target t;
    migraphx::register_target(t);
    for(bool on : {false, true})
    {
        t.seen->clear();
        auto p = relu_program();
        migraphx::compile_options o;
        o.exhaustive_tune = on;
        o.tf32            = on;
        o.fast_math       = not on;
        p.compile(t, o);
        auto v = program_to_value(p, literal_encoding::raw);
        EXPECT_EQ(v.at("compile_options").at("tf32").get_bool(), on);
        EXPECT_EQ(v.at("compile_options").at("exhaustive_tune").get_bool(), on);
        auto q = program_from_value(v, 0);
        ASSERT_EQ(t.seen->size(), 2u) << "compile, then the load's restoring";
        const auto& loaded = t.seen->back();
        EXPECT_EQ(loaded.tf32, on);
        EXPECT_EQ(loaded.exhaustive_tune, on);
        EXPECT_EQ(loaded.fast_math, not on);
    }
}

TEST(serialize_program_value, a_file_from_before_tf32_loads_with_plain_float_math)
{
    options_noting_target t;
    migraphx::register_target(t);
    auto p = relu_program();
    migraphx::compile_options o;
    o.tf32 = true;
    p.compile(t, o);
    auto v = program_to_value(p, literal_encoding::raw);
    // an older writer's compile_options: no "tf32"
    migraphx::value::object old;
    for(const auto& [k, x] : v.at("compile_options").get_object())
        if(k != "tf32")
            old.emplace_back(k, x);
    v["compile_options"] = migraphx::value(std::move(old));
    t.seen->clear();
    auto q = program_from_value(v, 0);
    ASSERT_EQ(t.seen->size(), 1u);
    EXPECT_FALSE(t.seen->back().tf32);
}

TEST(serialize_program_value, input_defined_later_throws)
{
    auto v   = program_to_value(migx_test::small_cnn(), literal_encoding::raw);
    auto* c  = find_op(v, "convolution");
    (*c)["inputs"] = migraphx::value{0, 100};
    auto msg = load_error(v);
    EXPECT_NE(msg.find("(convolution): input 100 is not an instruction defined before it"), std::string::npos) << msg;
}

TEST(serialize_program_value, wrong_shape_throws)
{
    auto v  = program_to_value(migx_test::small_cnn(), literal_encoding::raw);
    auto* r = find_op(v, "relu");
    (*r)["shape"]["lens"] = migraphx::value{1, 4, 8, 9};
    auto msg = load_error(v);
    EXPECT_NE(msg.find("shape that its operation no longer computes"), std::string::npos) << msg;
}

TEST(serialize_program_value, bad_attribute_throws)
{
    auto v  = program_to_value(migx_test::small_cnn(), literal_encoding::raw);
    auto* c = find_op(v, "convolution");
    (*c)["attrs"]["no_such_attr"] = 1;
    auto msg = load_error(v);
    EXPECT_NE(msg.find("unknown attribute 'no_such_attr'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(convolution)"), std::string::npos) << msg;
}

TEST(serialize_program_value, literal_size_mismatch_throws)
{
    auto v  = program_to_value(migx_test::small_cnn(), literal_encoding::raw);
    auto* l = find_op(v, "@literal");
    (*l)["data"] = std::string(5, 'x');
    auto msg = load_error(v);
    EXPECT_NE(msg.find("literal data is 5 bytes but its shape needs 2560"), std::string::npos) << msg;
    (*l)["data"] = 7;
    msg = load_error(v);
    EXPECT_NE(msg.find("data is not a string"), std::string::npos) << msg;
}

TEST(serialize_program_value, missing_fields_throw)
{
    auto v = program_to_value(migx_test::small_cnn(), literal_encoding::raw);
    v.get_object().erase(v.get_object().begin()); // "modules"
    EXPECT_NE(load_error(v).find("missing 'modules'"), std::string::npos);
    EXPECT_NE(load_error(migraphx::value{1, 2}).find("expected an object"), std::string::npos);
    auto w = program_to_value(migx_test::small_cnn(), literal_encoding::raw);
    w["modules"].get_array().at(0)["name"] = "other";
    EXPECT_NE(load_error(w).find("the first module is 'other', not 'main'"), std::string::npos);
}

TEST(serialize_program_value, module_cycles_and_unknown_modules_throw)
{
    auto v = program_to_value(migx_test::with_submodules(), literal_encoding::raw);
    auto& then_ins = v["modules"].get_array().at(1)["instructions"].get_array();
    auto& els_ins  = v["modules"].get_array().at(2)["instructions"].get_array();
    // then_mod's first instruction becomes an `if` over (then_mod, else_mod): a cycle
    auto iff = *find_op(v, "if");
    iff["inputs"] = migraphx::value{0};
    then_ins.insert(then_ins.begin(), iff);
    (void)els_ins;
    auto msg = load_error(v);
    EXPECT_NE(msg.find("would make the module call itself"), std::string::npos) << msg;
    // then_mod -> else_mod -> then_mod
    auto u    = program_to_value(migx_test::with_submodules(), literal_encoding::raw);
    auto call = *find_op(u, "if");
    call["inputs"]  = migraphx::value{0};
    call["modules"] = migraphx::value{"else_mod", "else_mod"};
    auto& t2        = u["modules"].get_array().at(1)["instructions"].get_array();
    t2.insert(t2.begin(), call);
    call["modules"] = migraphx::value{"then_mod", "then_mod"};
    auto& e2        = u["modules"].get_array().at(2)["instructions"].get_array();
    e2.insert(e2.begin(), call);
    msg = load_error(u);
    EXPECT_NE(msg.find("calls itself through its sub-modules"), std::string::npos) << msg;
    auto w  = program_to_value(migx_test::with_submodules(), literal_encoding::raw);
    (*find_op(w, "if"))["modules"] = migraphx::value{"then_mod", "nowhere"};
    msg = load_error(w);
    EXPECT_NE(msg.find("no module named 'nowhere'"), std::string::npos) << msg;
}

namespace {
const migraphx::literal& first_literal(const migraphx::program& p)
{
    const auto* mm = p.get_main_module();
    for(auto it = mm->begin(); it != mm->end(); ++it)
        if(it->name() == "@literal")
            return it->get_literal();
    throw std::runtime_error("no literal");
}
} // namespace

// Literal bytes left in the input (byte_refs): shared where an owner keeps the input alive and
// they are aligned, copied otherwise; the program is the same either way.
TEST(serialize_program_value, literals_share_or_copy_the_input)
{
    using namespace migraphx::serialize;
    auto p = migx_test::small_cnn();
    std::vector<char> bytes;
    value_to_msgpack(program_to_value(p, literal_encoding::raw), bytes);
    for(std::size_t shift : {0, 4})
    {
        // an owned, 64-byte aligned copy of the bytes, shifted to break the alignment
        std::shared_ptr<char> owned(static_cast<char*>(::operator new(bytes.size() + 64, std::align_val_t{64})),
                                    [](char* q) { ::operator delete(q, std::align_val_t{64}); });
        std::copy(bytes.begin(), bytes.end(), owned.get() + shift);
        const char* begin = owned.get() + shift;
        const char* end   = begin + bytes.size();
        for(bool with_owner : {true, false})
        {
            byte_refs refs;
            if(with_owner)
                refs.owner = owned;
            std::size_t offset = 0;
            auto v             = msgpack_to_value(begin, bytes.size(), offset, &refs);
            ASSERT_EQ(refs.spans.size(), 3); // fc, bias, weights
            auto q = program_from_value(v, 0, &refs);
            EXPECT_EQ(migx_test::to_string(q), migx_test::to_string(p));
            EXPECT_EQ(q, p);
            const auto& l = first_literal(q); // fc: 2560 bytes, aligned in the output
            bool inside   = l.data() >= begin and l.data() < end;
            EXPECT_EQ(inside, with_owner and shift == 0) << shift << " " << with_owner;
            if(inside)
            {
                EXPECT_EQ(reinterpret_cast<std::uintptr_t>(l.data()) % migraphx::serialize::data_alignment, 0);
                EXPECT_GT(owned.use_count(), 1) << "the literal keeps the bytes alive";
            }
        }
    }
}

TEST(serialize_program_value, bad_byte_refs_throw)
{
    using namespace migraphx::serialize;
    auto v  = program_to_value(migx_test::small_cnn(), literal_encoding::raw);
    auto* l = find_op(v, "@literal");
    (*l)["data"] = migraphx::value::object{{bytes_key, 0}};
    auto msg     = load_error(v); // no byte_refs: not data
    EXPECT_NE(msg.find("data is not a string"), std::string::npos) << msg;
    std::string ten(10, 'x');
    byte_refs refs;
    refs.spans.emplace_back(ten.data(), ten.size());
    (*l)["data"] = migraphx::value::object{{bytes_key, 1}};
    try
    {
        program_from_value(v, 0, &refs);
        ADD_FAILURE() << "no exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("data refers to bytes that are not there"), std::string::npos) << e.what();
    }
    (*l)["data"] = migraphx::value::object{{bytes_key, 0}};
    try
    {
        program_from_value(v, 0, &refs);
        ADD_FAILURE() << "no exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("literal data is 10 bytes but its shape needs 2560"), std::string::npos)
            << e.what();
    }
}

TEST(serialize_program_value, huge_shape_is_malformed_not_printed)
{
    auto v  = program_to_value(migx_test::small_cnn(), literal_encoding::raw);
    auto* r = find_op(v, "relu");
    migraphx::value::array lens(100000, migraphx::value(1));
    (*r)["shape"]["lens"] = migraphx::value(lens);
    auto msg = load_error(v);
    EXPECT_NE(msg.find("(relu): malformed shape"), std::string::npos) << msg.substr(0, 300);
    EXPECT_LT(msg.size(), 1000);
    // a shape of ordinary size still says what is wrong with it
    (*r)["shape"]["lens"] = migraphx::value{1, 4, 8, 9};
    msg = load_error(v);
    EXPECT_EQ(msg.find("malformed shape"), std::string::npos) << msg;
}

namespace {
/// An op nobody registered: a loader could not make it by name.
struct unregistered_op
{
    std::string name() const { return "test::unregistered"; }
    migraphx::shape compute_shape(const std::vector<migraphx::shape>& inputs) const { return inputs.at(0); }
};
} // namespace

TEST(serialize_program_value, an_unregistered_op_cannot_be_saved)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", migraphx::shape{migraphx::shape::float_type, {2}});
    mm->add_return({mm->add_instruction(migraphx::operation{unregistered_op{}}, x)});
    try
    {
        migraphx::serialize::program_to_value(p, migraphx::serialize::literal_encoding::raw);
        FAIL() << "saved an op a loader cannot rebuild";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("test::unregistered"), std::string::npos) << e.what();
    }
}

// A compiled program's target is looked up before its ops are rebuilt: a file of a target this
// process lacks (whose ops a build without it does not even register) says which target.
TEST(serialize_program_value, unavailable_target_is_reported_before_its_ops)
{
    auto p = migx_test::small_cnn();
    p.compile(migraphx::ref::target{});
    auto v      = program_to_value(p, literal_encoding::raw);
    v["target"] = "tpu";
    for(auto& i : main_instructions(v))
        if(i.at("op").get_string().front() != '@')
            i["op"] = "tpu::kernel";
    auto msg = load_error(v);
    EXPECT_NE(msg.find("compiled for target 'tpu', which is not available here"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("unknown operator"), std::string::npos) << msg;
    v["target"] = "gpu";
    msg         = load_error(v);
    if(not migx_test::have_target("gpu"))
    {
#ifdef MIGRAPHX_HAVE_GPU
        // built with the gpu target, on a machine without a device: that is the reason given
        EXPECT_NE(msg.find("this library has the gpu target, but no CUDA device was found"), std::string::npos)
            << msg;
#else
        EXPECT_NE(msg.find("a gpu program runs only where a CUDA device is present"), std::string::npos) << msg;
#endif
    }
}
