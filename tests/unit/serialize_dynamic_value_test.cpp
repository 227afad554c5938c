// A dynamic program through .mxr (src/serialize/dynamic_value.cpp): the loaded program keeps its
// ranges and specialises per shape like the one saved; a damaged "dynamic" entry is an error.
#ifdef MIGX_TEST_HAVE_ONNX

#include <gtest/gtest.h>
#include <migraphx/load_save.hpp>
#include <migraphx/ref/target.hpp>
#include "ir/dynamic_program.hpp"
#include "onnx_test_model.hpp"
#include "serialize/dynamic_value.hpp"

using migx_test::onnx_model;
using onnx::TensorProto;

namespace {

migraphx::program dynamic_relu()
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {-1, 2});
    m.node("Shape", {"x"}, {"s"});
    auto& c = m.node("ConstantOfShape", {"s"}, {"ones"});
    onnx_model::attr(c, "value", onnx_model::tensor("v", {1}, {2.0f}));
    m.node("Mul", {"x", "ones"}, {"y"});
    m.output("y");
    migraphx::onnx_options o;
    o.map_dyn_input_dims["x"] = {{1, 5, {3}}, {2, 2, {}}};
    return m.parse(o);
}

std::vector<float> run_at(const migraphx::program& p, std::size_t n)
{
    std::vector<float> x(n * 2);
    for(std::size_t i = 0; i < x.size(); i++)
        x[i] = static_cast<float>(i) - 3;
    auto r = p.eval({{"x", migraphx::argument{migraphx::shape{migraphx::shape::float_type, {n, 2}}, x.data()}}});
    return r.at(0).to_vector<float>();
}

} // namespace

TEST(serialize_dynamic_value, a_loaded_program_keeps_its_ranges_and_specialises)
{
    for(const char* format : {"msgpack", "json"})
    {
        auto p = dynamic_relu();
        p.compile(migraphx::ref::target{});
        migraphx::file_options fo;
        fo.format = format;
        auto q    = migraphx::load_buffer(migraphx::save_buffer(p, fo));
        ASSERT_NE(migraphx::get_dynamic_source(q), nullptr) << format;
        EXPECT_EQ(q.get_inputs().at("x"), p.get_inputs().at("x")) << format;
        for(std::size_t n : {5, 1, 3})
            EXPECT_EQ(run_at(q, n), run_at(p, n)) << format << " n=" << n;
        EXPECT_EQ(run_at(q, 2), (std::vector<float>{-6, -4, -2, 0})) << format;
        EXPECT_THROW(run_at(q, 6), migraphx::exception);
    }
}

TEST(serialize_dynamic_value, a_static_program_has_no_dynamic_entry)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    mm->add_return({mm->add_parameter("x", migraphx::shape{migraphx::shape::float_type, {2}})});
    auto q = migraphx::load_buffer(migraphx::save_buffer(p));
    EXPECT_EQ(migraphx::get_dynamic_source(q), nullptr);
}

TEST(serialize_dynamic_value, damaged_entries_are_errors)
{
    auto p   = dynamic_relu();
    auto src = migraphx::get_dynamic_source(p);
    auto v   = migraphx::serialize::dynamic_to_value(*src, migraphx::serialize::literal_encoding::raw);
    EXPECT_NE(migraphx::serialize::dynamic_from_value(v, nullptr), nullptr);
    auto broken = [&](const std::string& key, migraphx::value x) {
        auto w = v;
        w[key] = std::move(x);
        EXPECT_THROW(migraphx::serialize::dynamic_from_value(w, nullptr), migraphx::exception) << key;
    };
    broken("kind", "no-such-kind");
    broken("kind", 3);
    broken("ranges", "x");
    broken("ranges", migraphx::value::array{migraphx::value::object{{"name", "x"}, {"dims", migraphx::value::array{
                                                                       migraphx::value::array{0, 4, migraphx::value::array{}}}}}});
    broken("options", migraphx::value::object{});
    broken("data", 7);
}

#endif // MIGX_TEST_HAVE_ONNX
