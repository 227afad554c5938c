// Ops whose state is more than their attributes (src/serialize/op_serializer.cpp): the registry's
// lookup (exact name, then the longest prefix) and a whole round trip of an op that make_op does
// not know, which holds bytes and names a module, through both encodings.
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/reflect.hpp>
#include <cstring>
#include "serialize/json_value.hpp"
#include "serialize/msgpack_value.hpp"
#include "serialize/op_serializer.hpp"
#include "serialize/program_value.hpp"
#include "serialize_test_util.hpp"

using migraphx::shape;
using namespace migraphx::serialize;

namespace {

/// Not registered with make_op: only its serializer can rebuild it. It holds a literal outside
/// its attributes, and a module it names (as gpu::ref::<op> does).
struct blob_op
{
    std::string tag;
    migraphx::literal data;
    migraphx::module_ref mod = nullptr;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.tag, "tag");
    }
    std::string name() const { return "test::blob"; }
    shape compute_shape(const std::vector<shape>&) const { return data.get_shape(); }
};

const bool registered = [] {
    op_serializer s;
    s.literal_required = true;
    s.get_literal      = [](const migraphx::operation& op) -> std::optional<migraphx::literal> {
        return op.any_cast<blob_op>()->data;
    };
    s.set_literal = [](migraphx::operation& op, const migraphx::literal& l) { op.any_cast<blob_op>()->data = l; };
    s.save        = [](const migraphx::operation& op) {
        const auto* b = op.any_cast<blob_op>();
        return migraphx::value::object{{"tag", b->tag}, {"module", b->mod == nullptr ? "" : b->mod->name()}};
    };
    s.load = [](const std::string&, const migraphx::value& attrs, const module_lookup& module) {
        blob_op b;
        b.tag = attrs.at("tag").get_string();
        if(not attrs.at("module").get_string().empty())
            b.mod = module(attrs.at("module").get_string());
        return migraphx::operation{b};
    };
    register_op_serializer("test::blob", s);
    op_serializer marker; // found by prefix, and tells which one was found by its save
    marker.save = [](const migraphx::operation&) { return migraphx::value("short"); };
    register_op_serializer("test::pre", marker, true);
    marker.save = [](const migraphx::operation&) { return migraphx::value("long"); };
    register_op_serializer("test::prefix::", marker, true);
    return true;
}();

std::vector<float> weights(std::size_t n)
{
    std::vector<float> w(n);
    for(std::size_t i = 0; i < n; i++)
        w[i] = 1.5f + static_cast<float>(i);
    return w;
}

/// main: x + blob (the blob names module "body"); body: its own blob, naming no module.
migraphx::program blob_program()
{
    migraphx::program p;
    auto* mm   = p.get_main_module();
    auto* body = p.create_module("body");
    shape s{shape::float_type, {2, 300}};
    auto x = mm->add_parameter("x", s);
    blob_op b;
    b.tag  = "main blob";
    b.data = migraphx::literal{s, weights(s.elements())};
    b.mod  = body;
    auto c = mm->add_instruction(migraphx::operation{b}, std::vector<migraphx::instruction_ref>{});
    mm->add_return({mm->add_instruction(migraphx::make_op("add"), x, c)});
    blob_op inner;
    inner.tag  = "inner";
    inner.data = migraphx::literal{shape{shape::float_type, {3}}, {1.0f, 2.0f, 3.0f}};
    body->add_return({body->add_instruction(migraphx::operation{inner}, std::vector<migraphx::instruction_ref>{})});
    return p;
}

const blob_op& blob_in(const migraphx::program& p, const std::string& module)
{
    for(const auto* m : p.get_modules())
        if(m->name() == module)
            for(auto it = m->begin(); it != m->end(); ++it)
                if(it->name() == "test::blob")
                    return *it->get_operator().any_cast<blob_op>();
    throw std::runtime_error("no blob in " + module);
}

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

migraphx::value* find_op(migraphx::value& v, std::size_t module, const std::string& name)
{
    for(auto& i : v["modules"].get_array().at(module)["instructions"].get_array())
        if(i.at("op").get_string() == name)
            return &i;
    return nullptr;
}

} // namespace

TEST(serialize_op_serializer, lookup_by_name_then_longest_prefix)
{
    ASSERT_TRUE(registered);
    ASSERT_NE(find_op_serializer("test::blob"), nullptr);
    EXPECT_EQ(find_op_serializer("test::blo"), nullptr);
    EXPECT_EQ(find_op_serializer("relu"), nullptr);
    migraphx::operation op{blob_op{}};
    ASSERT_NE(find_op_serializer("test::preamble"), nullptr);
    EXPECT_EQ(find_op_serializer("test::preamble")->save(op), migraphx::value("short"));
    ASSERT_NE(find_op_serializer("test::prefix::x"), nullptr);
    EXPECT_EQ(find_op_serializer("test::prefix::x")->save(op), migraphx::value("long"));
    EXPECT_EQ(find_op_serializer("test::pr"), nullptr);
}

TEST(serialize_op_serializer, op_with_bytes_and_a_module_round_trips)
{
    auto p    = blob_program();
    auto text = migx_test::to_string(p);
    EXPECT_NE(text.find("test::blob[tag=main blob] -> float_type, {2, 300}"), std::string::npos) << text;
    for(auto enc : {literal_encoding::raw, literal_encoding::base64})
    {
        auto v  = program_to_value(p, enc);
        auto* b = find_op(v, 0, "test::blob");
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(b->at("attrs").at("module"), migraphx::value("body"));
        EXPECT_TRUE(b->at("literal").contains(enc == literal_encoding::raw ? "data" : "base64"));
        auto q = program_from_value(v, 0);
        EXPECT_EQ(migx_test::to_string(q), text);
        const auto& back = blob_in(q, "main");
        EXPECT_EQ(back.tag, "main blob");
        ASSERT_NE(back.mod, nullptr);
        EXPECT_EQ(back.mod->name(), "body");
        EXPECT_EQ(back.mod, q.get_modules().at(1)) << "the loaded program's module, not the saved one's";
        EXPECT_EQ(back.data, blob_in(p, "main").data);
        EXPECT_EQ(blob_in(q, "body").data, blob_in(p, "body").data);
    }
}

// In msgpack the bytes are written once, aligned, and (with an owner) shared, not copied.
TEST(serialize_op_serializer, bytes_are_aligned_and_shared)
{
    auto p = blob_program();
    std::vector<char> bytes;
    value_to_msgpack(program_to_value(p, literal_encoding::raw), bytes);
    const auto& l = blob_in(p, "main").data;
    std::string want(l.data(), l.get_shape().bytes());
    auto at = std::search(bytes.begin(), bytes.end(), want.begin(), want.end());
    ASSERT_NE(at, bytes.end());
    EXPECT_EQ(static_cast<std::size_t>(at - bytes.begin()) % data_alignment, 0u);
    EXPECT_EQ(std::search(at + 1, bytes.end(), want.begin(), want.end()), bytes.end()) << "stored twice";

    std::shared_ptr<char> owned(static_cast<char*>(::operator new(bytes.size(), std::align_val_t{64})),
                                [](char* q) { ::operator delete(q, std::align_val_t{64}); });
    std::memcpy(owned.get(), bytes.data(), bytes.size());
    byte_refs refs;
    refs.owner         = owned;
    std::size_t offset = 0;
    auto v             = msgpack_to_value(owned.get(), bytes.size(), offset, &refs);
    auto q             = program_from_value(v, 0, &refs);
    const auto& shared = blob_in(q, "main").data;
    EXPECT_EQ(shared.data(), owned.get() + (at - bytes.begin())) << "the bytes were copied";
    EXPECT_EQ(shared, l);
}

TEST(serialize_op_serializer, bad_content_throws)
{
    auto p  = blob_program();
    auto v  = program_to_value(p, literal_encoding::raw);
    auto* b = find_op(v, 0, "test::blob");
    b->get_object().pop_back(); // its "literal"
    auto msg = load_error(v);
    EXPECT_NE(msg.find("module main, instruction 1 (test::blob): has no 'literal'"), std::string::npos) << msg;

    v = program_to_value(p, literal_encoding::raw);
    find_op(v, 0, "test::blob")->operator[]("literal")["shape"] =
        migraphx::shape_to_value(shape{shape::float_type, {2, 3}});
    msg = load_error(v);
    EXPECT_NE(msg.find("literal data is 2400 bytes but its shape needs 24"), std::string::npos) << msg;

    v = program_to_value(p, literal_encoding::raw);
    find_op(v, 0, "add")->operator[]("literal") = find_op(v, 0, "test::blob")->at("literal");
    msg = load_error(v);
    EXPECT_NE(msg.find("(add): has 'literal', which its operator does not take"), std::string::npos) << msg;

    for(const char* name : {"main", "nowhere"})
    {
        v = program_to_value(p, literal_encoding::raw);
        find_op(v, 0, "test::blob")->operator[]("attrs")["module"] = name;
        msg = load_error(v);
        EXPECT_NE(msg.find(name == std::string("main") ? "module 'main' would make the module call itself"
                                                       : "no module named 'nowhere'"),
                  std::string::npos)
            << msg;
    }

    // body's blob naming body itself
    v = program_to_value(p, literal_encoding::raw);
    find_op(v, 1, "test::blob")->operator[]("attrs")["module"] = "body";
    msg = load_error(v);
    EXPECT_NE(msg.find("module 'body' would make the module call itself"), std::string::npos) << msg;
}

TEST(serialize_op_serializer, op_module_cycles_through_two_modules_throw)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto* a  = p.create_module("a");
    auto* b  = p.create_module("b");
    blob_op x;
    x.data = migraphx::literal{shape{shape::float_type, {1}}, {1.0f}};
    x.mod  = a;
    mm->add_return({mm->add_instruction(migraphx::operation{x}, std::vector<migraphx::instruction_ref>{})});
    x.mod = b;
    a->add_return({a->add_instruction(migraphx::operation{x}, std::vector<migraphx::instruction_ref>{})});
    x.mod = a;
    b->add_return({b->add_instruction(migraphx::operation{x}, std::vector<migraphx::instruction_ref>{})});
    auto msg = load_error(program_to_value(p, literal_encoding::raw));
    EXPECT_NE(msg.find("calls itself through its sub-modules"), std::string::npos) << msg;
}

// Without a serializer an op make_op does not know cannot be saved; with one it can.
TEST(serialize_op_serializer, save_accepts_ops_with_a_serializer_only)
{
    auto ops = migraphx::get_operators();
    EXPECT_EQ(std::find(ops.begin(), ops.end(), "test::blob"), ops.end());
    auto v = program_to_value(blob_program(), literal_encoding::raw);
    EXPECT_EQ(find_op(v, 0, "test::blob")->at("literal").at("shape"),
              migraphx::shape_to_value(shape{shape::float_type, {2, 300}}));
}
