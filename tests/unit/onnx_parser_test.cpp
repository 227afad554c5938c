// Unit tests of the ONNX importer's core (src/onnx/onnx_parser.cpp): inputs, initializers,
// outputs, dims, opsets, constant folding, and errors on bad models.
#ifdef MIGX_TEST_HAVE_ONNX

#include "onnx_test_model.hpp"
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdio>
#include <fstream>

using migx_test::onnx_model;
using onnx::TensorProto;

namespace {

onnx_model add_model()
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2, 3});
    m.input("y", TensorProto::FLOAT, {3});
    m.node("Add", {"x", "y"}, {"z"}, "add_node");
    m.output("z");
    return m;
}

std::string write_temp(const std::string& name, const std::string& data)
{
    auto path = testing::TempDir() + name;
    std::ofstream f(path, std::ios::binary);
    f << data;
    return path;
}

} // namespace

TEST(onnx_parser, parses_and_broadcasts_add)
{
    auto p      = add_model().parse();
    auto inputs = p.get_inputs();
    ASSERT_EQ(inputs.size(), 2u);
    EXPECT_EQ(inputs.at("x").lens(), (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(inputs.at("y").lens(), (std::vector<std::size_t>{3}));
    EXPECT_EQ(p.get_output_names(), std::vector<std::string>{"z"});
    auto r = migx_test::run(p, {{"x", {1, 2, 3, 4, 5, 6}}, {"y", {10, 20, 30}}});
    EXPECT_EQ(r, (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

TEST(onnx_parser, outputs_follow_graph_order)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2});
    m.node("Relu", {"x"}, {"a"});
    m.node("Neg", {"x"}, {"b"});
    m.output("b");
    m.output("a");
    auto p = m.parse();
    EXPECT_EQ(p.get_output_names(), (std::vector<std::string>{"b", "a"}));
    p.compile(migraphx::ref::target{});
    std::vector<float> x{-1, 2};
    auto r = p.eval({{"x", migraphx::argument{p.get_parameter_shapes().at("x"), x.data()}}});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{1, -2}));
    EXPECT_EQ(r[1].to_vector<float>(), (std::vector<float>{0, 2}));
}

TEST(onnx_parser, initializers_listed_as_inputs_are_constants)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2});
    m.input("w", TensorProto::FLOAT, {2});
    m.initializer(onnx_model::tensor("w", {2}, {3, 4}));
    m.node("Mul", {"x", "w"}, {"y"});
    m.output("y");
    auto p = m.parse();
    EXPECT_EQ(p.get_inputs().size(), 1u);
    EXPECT_EQ(p.get_inputs().count("x"), 1u);
    EXPECT_EQ(migx_test::run(p, {{"x", {1, 2}}}), (std::vector<float>{3, 8}));
}

TEST(onnx_parser, symbolic_dims)
{
    onnx_model m;
    m.input("a", TensorProto::FLOAT, {-1, 3}); // N
    m.input("b", TensorProto::FLOAT, {-1, 1}); // the same N
    m.input("c", TensorProto::FLOAT, {-2});    // unnamed
    m.node("Add", {"a", "b"}, {"d"});
    m.output("d");
    auto p = m.parse();
    EXPECT_EQ(p.get_inputs().at("a").lens(), (std::vector<std::size_t>{1, 3}));
    EXPECT_EQ(p.get_inputs().at("c").lens(), (std::vector<std::size_t>{1}));

    migraphx::onnx_options o;
    o.default_dim_value = 4;
    p = m.parse(o);
    EXPECT_EQ(p.get_inputs().at("a").lens(), (std::vector<std::size_t>{4, 3}));
    EXPECT_EQ(p.get_inputs().at("b").lens(), (std::vector<std::size_t>{4, 1}));
    EXPECT_EQ(p.get_inputs().at("c").lens(), (std::vector<std::size_t>{4}));
    EXPECT_EQ(p.get_outputs().at("d").lens(), (std::vector<std::size_t>{4, 3}));

    o.map_input_dims["a"] = {2, 3};
    o.map_input_dims["b"] = {2, 1};
    p = m.parse(o);
    EXPECT_EQ(p.get_inputs().at("a").lens(), (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(p.get_outputs().at("d").lens(), (std::vector<std::size_t>{2, 3}));

    o.map_input_dims["a"] = {2, 3, 4};
    EXPECT_THROW(m.parse(o), migraphx::exception); // wrong rank
}

TEST(onnx_parser, constant_node_and_shape_folding)
{
    // Reshape's shape comes from Shape -> Gather -> Concat: folded at parse time.
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2, 3, 4});
    m.node("Shape", {"x"}, {"s"});
    auto& c = m.node("Constant", {}, {"i"});
    onnx_model::attr(c, "value", onnx_model::int_tensor("", {1}, {0}));
    m.node("Gather", {"s", "i"}, {"n"});
    auto& c2 = m.node("Constant", {}, {"minus1"});
    onnx_model::attr(c2, "value", onnx_model::int_tensor("", {1}, {-1}));
    onnx_model::attr(m.node("Concat", {"n", "minus1"}, {"shape"}), "axis", std::int64_t{0});
    m.node("Reshape", {"x", "shape"}, {"y"});
    m.output("y");
    auto p = m.parse();
    EXPECT_EQ(p.get_outputs().at("y").lens(), (std::vector<std::size_t>{2, 12}));
}

TEST(onnx_parser, shape_input_must_be_constant_or_given)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2, 3});
    m.input("shape", TensorProto::INT64, {1});
    m.node("Reshape", {"x", "shape"}, {"y"}, "reshape_node");
    m.output("y");
    try
    {
        m.parse();
        FAIL() << "expected an exception";
    }
    catch(const migraphx::exception& e)
    {
        std::string msg = e.what();
        EXPECT_NE(msg.find("Reshape node 'reshape_node'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("graph input 'shape'"), std::string::npos) << msg;
    }
    migraphx::onnx_options o;
    std::vector<std::int64_t> six{6};
    o.map_input_constants["shape"] = migraphx::argument{migraphx::shape{migraphx::shape::int64_type, {1}}, six.data()};
    auto p = m.parse(o);
    EXPECT_EQ(p.get_inputs().size(), 1u);
    EXPECT_EQ(p.get_outputs().at("y").lens(), (std::vector<std::size_t>{6}));
}

TEST(onnx_parser, opset_selects_semantics)
{
    // Softmax before opset 13 normalizes over the flattened trailing dims.
    auto make = [](std::int64_t opset) {
        onnx_model m(opset);
        m.input("x", TensorProto::FLOAT, {1, 2, 2});
        auto& n = m.node("Softmax", {"x"}, {"y"});
        onnx_model::attr(n, "axis", std::int64_t{1});
        m.output("y");
        return m.parse();
    };
    std::vector<float> x{0, 0, 0, 0};
    auto old_r = migx_test::run(make(11), {{"x", x}});
    auto new_r = migx_test::run(make(13), {{"x", x}});
    EXPECT_FLOAT_EQ(old_r[0], 0.25f);
    EXPECT_FLOAT_EQ(new_r[0], 0.5f);
}

TEST(onnx_parser, unknown_operator_errors)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2});
    m.node("Relu", {"x"}, {"r"});
    m.node("NoSuchOp", {"r"}, {"y"}, "mystery");
    m.output("y");
    migraphx::onnx_options o;
    o.print_program_on_error = true;
    try
    {
        m.parse(o);
        FAIL() << "expected an exception";
    }
    catch(const migraphx::exception& e)
    {
        std::string msg = e.what();
        EXPECT_NE(msg.find("NoSuchOp"), std::string::npos) << msg;
        EXPECT_NE(msg.find("mystery"), std::string::npos) << msg;
        EXPECT_NE(msg.find("opset 17"), std::string::npos) << msg;
    }
    o.skip_unknown_operators = true;
    auto p = m.parse(o);
    EXPECT_EQ(p.get_outputs().at("y").lens(), (std::vector<std::size_t>{2}));
}

TEST(onnx_parser, bad_attribute_names_the_node)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2, 3});
    auto& n = m.node("Transpose", {"x"}, {"y"}, "tr");
    onnx_model::attr(n, "perm", std::vector<std::int64_t>{0, 5});
    m.output("y");
    try
    {
        m.parse();
        FAIL() << "expected an exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("Transpose node 'tr'"), std::string::npos) << e.what();
    }
}

TEST(onnx_parser, malformed_input_throws)
{
    auto good = add_model().bytes();
    EXPECT_THROW(migraphx::parse_onnx_buffer(good.substr(0, good.size() / 2)), migraphx::exception);
    EXPECT_THROW(migraphx::parse_onnx_buffer(std::string("this is not an onnx model at all")), migraphx::exception);
    EXPECT_THROW(migraphx::parse_onnx_buffer(std::string()), migraphx::exception);
    std::string garbage(257, '\0');
    for(std::size_t i = 0; i < garbage.size(); i++)
        garbage[i] = static_cast<char>((i * 131 + 7) % 251);
    EXPECT_THROW(migraphx::parse_onnx_buffer(garbage), migraphx::exception);
    EXPECT_THROW(migraphx::parse_onnx(testing::TempDir() + "does_not_exist.onnx"), migraphx::exception);
    auto truncated = write_temp("truncated.onnx", good.substr(0, good.size() - 3));
    EXPECT_THROW(migraphx::parse_onnx(truncated), migraphx::exception);
    std::remove(truncated.c_str());
    EXPECT_NO_THROW(migraphx::parse_onnx(write_temp("good.onnx", good)));
}

TEST(onnx_parser, undefined_input_and_bad_graph_throw)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2});
    m.node("Add", {"x", "nowhere"}, {"y"});
    m.output("y");
    EXPECT_THROW(m.parse(), migraphx::exception);

    onnx_model m2;
    m2.input("x", TensorProto::FLOAT, {2});
    m2.output("missing");
    EXPECT_THROW(m2.parse(), migraphx::exception);

    onnx_model m3;
    m3.input("x", TensorProto::STRING, {2});
    m3.output("x");
    EXPECT_THROW(m3.parse(), migraphx::exception);
}

TEST(onnx_parser, operator_list)
{
    auto ops = migraphx::get_onnx_operators();
    EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
    for(const auto* op : {"Add", "Conv", "Gemm", "MatMul", "Relu", "Reshape", "Resize", "Softmax", "LSTM", "If"})
        EXPECT_TRUE(std::binary_search(ops.begin(), ops.end(), op)) << op;
}

TEST(onnx_parser, external_data_next_to_the_model)
{
    auto dir = testing::TempDir();
    std::vector<float> w{1.5f, -2.0f, 4.0f};
    {
        std::ofstream f(dir + "weights.bin", std::ios::binary);
        f << "PAD!";
        f.write(reinterpret_cast<const char*>(w.data()), sizeof(float) * w.size());
    }
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {3});
    TensorProto t;
    t.set_name("w");
    t.set_data_type(TensorProto::FLOAT);
    t.add_dims(3);
    t.set_data_location(TensorProto::EXTERNAL);
    auto kv = [&](const char* k, const std::string& v) {
        auto* e = t.add_external_data();
        e->set_key(k);
        e->set_value(v);
    };
    kv("location", "weights.bin");
    kv("offset", "4");
    kv("length", std::to_string(sizeof(float) * 3));
    m.initializer(t);
    m.node("Mul", {"x", "w"}, {"y"});
    m.output("y");
    auto path = write_temp("external.onnx", m.bytes());
    auto p    = migraphx::parse_onnx(path);
    EXPECT_EQ(migx_test::run(p, {{"x", {2, 2, 2}}}), (std::vector<float>{3, -4, 8}));

    // A location outside the model's folder is refused.
    t.mutable_external_data(0)->set_value("../etc/passwd");
    m.graph().mutable_initializer(0)->CopyFrom(t);
    EXPECT_THROW(migraphx::parse_onnx(write_temp("external_bad.onnx", m.bytes())), migraphx::exception);
}

TEST(onnx_parser, read_onnx_tensor_reads_a_test_data_file)
{
    // as the ONNX test-data layout's input_0.pb: a TensorProto alone, raw data or typed fields
    TensorProto t;
    t.set_name("x");
    t.set_data_type(TensorProto::FLOAT);
    t.add_dims(2);
    t.add_dims(2);
    std::vector<float> v{1.5f, -2.0f, 4.0f, 0.25f};
    t.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), sizeof(float) * v.size()));
    auto a = migraphx::read_onnx_tensor(write_temp("input_0.pb", t.SerializeAsString()));
    EXPECT_EQ(a.get_shape(), (migraphx::shape{migraphx::shape::float_type, {2, 2}}));
    EXPECT_EQ(a.to_vector<float>(), v);
    TensorProto i;
    i.set_data_type(TensorProto::INT64);
    i.add_dims(3);
    for(std::int64_t x : {7, -1, 3})
        i.add_int64_data(x);
    auto b = migraphx::read_onnx_tensor(write_temp("input_1.pb", i.SerializeAsString()));
    EXPECT_EQ(b.to_vector<std::int64_t>(), (std::vector<std::int64_t>{7, -1, 3}));

    // errors name the file: missing, not a TensorProto, values that do not fill the dims
    auto throws_naming = [](const std::string& path, const std::string& what) {
        try
        {
            migraphx::read_onnx_tensor(path);
            ADD_FAILURE() << "no error for " << what;
        }
        catch(const migraphx::exception& e)
        {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << what << ": " << e.what();
        }
    };
    throws_naming(testing::TempDir() + "no_such_tensor.pb", "a missing file");
    throws_naming(write_temp("garbage.pb", "\xff\xff\xff\xff not a tensor"), "garbage");
    t.add_dims(3);
    throws_naming(write_temp("short.pb", t.SerializeAsString()), "too few values for the dims");
}

#endif
