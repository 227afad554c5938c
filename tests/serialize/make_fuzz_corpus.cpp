// Writes the fuzzer's seed files (checked in under fuzz_corpus/): small programs, uncompiled and
// compiled for ref (and cpu where built), in both formats. Run from the build tree:
//   make_fuzz_corpus DIR
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/ref/target.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <iostream>

namespace {
migraphx::program tiny()
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", migraphx::shape{migraphx::shape::float_type, {2, 2}});
    auto l   = mm->add_literal(migraphx::literal{migraphx::shape{migraphx::shape::float_type, {2, 2}}, {1, 2, 3, 4}});
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), l);
    auto r   = mm->add_instruction(migraphx::make_op("relu"), mm->add_instruction(migraphx::make_op("mul"), x, t));
    mm->add_return({mm->add_instruction(migraphx::make_op("softmax", {{"axis", 1}}), r)});
    return p;
}

migraphx::program conv()
{
    using migraphx::shape;
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 2, 4, 4}});
    auto w   = mm->add_literal(migraphx::generate_literal(shape{shape::float_type, {2, 2, 3, 3}}, 1));
    auto c   = mm->add_instruction(migraphx::make_op("convolution", {{"padding", {1, 1}}}), x, w);
    auto r   = mm->add_instruction(migraphx::make_op("relu"), c);
    mm->add_return({mm->add_instruction(
        migraphx::make_op("pooling", {{"mode", "max"}, {"lengths", {2, 2}}, {"stride", {2, 2}}, {"padding", {0, 0}}}),
        r)});
    return p;
}

// A literal of 2 KiB: saved with its bytes aligned behind an "@pad" entry (msgpack_value.hpp).
migraphx::program big_literal()
{
    using migraphx::shape;
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {2, 16}});
    auto w   = mm->add_literal(migraphx::generate_literal(shape{shape::float_type, {16, 32}}, 2));
    mm->add_return({mm->add_instruction(migraphx::make_op("dot"), x, w)});
    return p;
}

migraphx::program with_if()
{
    using migraphx::shape;
    migraphx::program p;
    auto* mm   = p.get_main_module();
    auto cond  = mm->add_parameter("cond", shape{shape::bool_type});
    auto x     = mm->add_parameter("x", shape{shape::float_type, {2}});
    auto* then = p.create_module("then");
    then->add_return({then->add_instruction(migraphx::make_op("exp"), x)});
    auto* els = p.create_module("else");
    els->add_return({els->add_instruction(migraphx::make_op("neg"), x)});
    mm->add_return({mm->add_instruction(migraphx::make_op("if"), {cond}, {then, els})});
    return p;
}
} // namespace

int main(int argc, char** argv)
{
    if(argc != 2)
    {
        std::cerr << "usage: make_fuzz_corpus DIR\n";
        return 2;
    }
    std::string dir = argv[1];
    auto targets    = migraphx::get_targets();
    for(auto [name, p] : {std::pair{"tiny", tiny()}, std::pair{"conv", conv()}, std::pair{"if", with_if()},
                              std::pair{"big_literal", big_literal()}})
    {
        std::vector<std::pair<std::string, migraphx::program>> variants{{"", p}};
        auto r = p;
        r.compile(migraphx::ref::target{});
        variants.emplace_back("_ref", r);
        if(std::find(targets.begin(), targets.end(), "cpu") != targets.end())
        {
            auto c = p;
            c.compile(migraphx::get_target("cpu"));
            variants.emplace_back("_cpu", c);
        }
        for(const auto& [suffix, q] : variants)
        {
            migraphx::save(q, dir + "/" + name + suffix + ".mxr");
            if(suffix != "_cpu")
                migraphx::save(q, dir + "/" + name + suffix + ".json", migraphx::file_options{"json"});
        }
    }
    return 0;
}
