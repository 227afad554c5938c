// Unit tests of the ONNX importer's op lowerings (src/onnx/parse_*.cpp) where the parser itself
// decides something: legacy broadcasting, omitted optional inputs, control flow inlining and
// unrolling, composed ops. The conformance runner (tests/onnx) covers the ops against ONNX data.
#ifdef MIGX_TEST_HAVE_ONNX

#include "onnx_test_model.hpp"
#include <migraphx/errors.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>

using migx_test::onnx_model;
using onnx::TensorProto;

namespace {

onnx::ValueInfoProto out_info(const std::string& name)
{
    onnx::ValueInfoProto v;
    v.set_name(name);
    return v;
}

onnx::GraphProto graph_of(const std::string& name,
                          std::vector<onnx::NodeProto> nodes,
                          std::vector<std::string> inputs,
                          std::vector<std::string> outputs)
{
    onnx::GraphProto g;
    g.set_name(name);
    for(auto& n : nodes)
        *g.add_node() = n;
    for(const auto& i : inputs)
        g.add_input()->set_name(i);
    for(const auto& o : outputs)
        *g.add_output() = out_info(o);
    return g;
}

onnx::NodeProto make_node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out)
{
    onnx::NodeProto n;
    n.set_op_type(op);
    for(const auto& i : in)
        n.add_input(i);
    for(const auto& o : out)
        n.add_output(o);
    return n;
}

void graph_attr(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g)
{
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = g;
}

std::size_t count_ops(const migraphx::program& p, const std::string& name)
{
    const auto* mm = p.get_main_module();
    return std::count_if(mm->begin(), mm->end(), [&](const auto& ins) { return ins.name() == name; });
}

} // namespace

TEST(onnx_ops, legacy_broadcast_with_axis)
{
    onnx_model m(6);
    m.input("a", TensorProto::FLOAT, {2, 3, 2});
    m.input("b", TensorProto::FLOAT, {3});
    auto& n = m.node("Add", {"a", "b"}, {"c"});
    onnx_model::attr(n, "broadcast", std::int64_t{1});
    onnx_model::attr(n, "axis", std::int64_t{1});
    m.output("c");
    auto r = migx_test::run(m.parse(), {{"a", std::vector<float>(12, 0)}, {"b", {1, 2, 3}}});
    EXPECT_EQ(r, (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(onnx_ops, clip_with_only_max)
{
    // Clip(x, "", max): the omitted min sits between two given inputs.
    onnx_model m(13);
    m.input("x", TensorProto::FLOAT, {3});
    m.initializer(onnx_model::tensor("hi", {}, {1}));
    m.node("Clip", {"x", "", "hi"}, {"y"});
    m.output("y");
    auto p = m.parse();
    EXPECT_EQ(count_ops(p, "undefined"), 0u);
    EXPECT_EQ(migx_test::run(p, {{"x", {-5, 0.5f, 7}}}), (std::vector<float>{-5, 0.5f, 1}));
}

TEST(onnx_ops, if_with_constant_condition_inlines_one_branch)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2});
    onnx::TensorProto cond;
    cond.set_data_type(TensorProto::BOOL);
    cond.add_int32_data(0);
    onnx_model::attr(m.node("Constant", {}, {"c"}), "value", cond);
    auto& n = m.node("If", {"c"}, {"y"});
    graph_attr(n, "then_branch", graph_of("then", {make_node("Neg", {"x"}, {"t"})}, {}, {"t"}));
    graph_attr(n, "else_branch", graph_of("else", {make_node("Abs", {"x"}, {"e"})}, {}, {"e"}));
    m.output("y");
    auto p = m.parse();
    EXPECT_EQ(count_ops(p, "neg"), 0u);
    EXPECT_EQ(count_ops(p, "abs"), 1u);
    EXPECT_EQ(migx_test::run(p, {{"x", {-1, 2}}}), (std::vector<float>{1, 2}));
}

TEST(onnx_ops, if_with_runtime_condition_selects)
{
    onnx_model m;
    m.input("c", TensorProto::BOOL, {});
    m.input("x", TensorProto::FLOAT, {2});
    auto& n = m.node("If", {"c"}, {"y"});
    graph_attr(n, "then_branch", graph_of("then", {make_node("Neg", {"x"}, {"t"})}, {}, {"t"}));
    graph_attr(n, "else_branch", graph_of("else", {make_node("Abs", {"x"}, {"e"})}, {}, {"e"}));
    m.output("y");
    auto p = m.parse();
    p.compile(migraphx::ref::target{});
    std::vector<float> x{-1, 2};
    for(bool c : {true, false})
    {
        migraphx::parameter_map params;
        params["x"] = migraphx::argument{migraphx::shape{migraphx::shape::float_type, {2}}, x.data()};
        params["c"] = migraphx::argument{migraphx::shape{migraphx::shape::bool_type}, &c};
        auto r      = p.eval(params).at(0).to_vector<float>();
        EXPECT_EQ(r, c ? (std::vector<float>{1, -2}) : (std::vector<float>{1, 2}));
    }
}

TEST(onnx_ops, loop_unrolls_with_scan_output)
{
    // v <- v + 1 three times; the scan output stacks each iteration's v.
    onnx_model m;
    m.input("v0", TensorProto::FLOAT, {2});
    m.initializer(onnx_model::int_tensor("trip", {}, {3}));
    m.initializer(onnx_model::tensor("one", {}, {1}));
    auto& n = m.node("Loop", {"trip", "", "v0"}, {"v", "scan"});
    graph_attr(n,
               "body",
               graph_of("body",
                        {make_node("Identity", {"cond_in"}, {"cond_out"}),
                         make_node("Add", {"v_in", "one"}, {"v_out"}),
                         make_node("Identity", {"v_out"}, {"s"})},
                        {"i", "cond_in", "v_in"},
                        {"cond_out", "v_out", "s"}));
    m.output("v");
    m.output("scan");
    auto p = m.parse();
    EXPECT_EQ(p.get_outputs().at("scan").lens(), (std::vector<std::size_t>{3, 2}));
    p.compile(migraphx::ref::target{});
    std::vector<float> v0{0, 10};
    auto r = p.eval({{"v0", migraphx::argument{migraphx::shape{migraphx::shape::float_type, {2}}, v0.data()}}});
    EXPECT_EQ(r.at(0).to_vector<float>(), (std::vector<float>{3, 13}));
    EXPECT_EQ(r.at(1).to_vector<float>(), (std::vector<float>{1, 11, 2, 12, 3, 13}));
}

TEST(onnx_ops, matmul_broadcasts_batches_and_vectors)
{
    onnx_model m;
    m.input("a", TensorProto::FLOAT, {2, 1, 2, 3});
    m.input("b", TensorProto::FLOAT, {3});
    m.node("MatMul", {"a", "b"}, {"y"});
    m.output("y");
    auto p = m.parse();
    EXPECT_EQ(p.get_outputs().at("y").lens(), (std::vector<std::size_t>{2, 1, 2}));
    auto r = migx_test::run(p, {{"a", {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}}, {"b", {1, 2, 3}}});
    EXPECT_EQ(r, (std::vector<float>{1, 2, 3, 6}));
}

TEST(onnx_ops, slice_with_negative_step)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {5});
    m.initializer(onnx_model::int_tensor("starts", {1}, {-1}));
    m.initializer(onnx_model::int_tensor("ends", {1}, {0}));
    m.initializer(onnx_model::int_tensor("axes", {1}, {0}));
    m.initializer(onnx_model::int_tensor("steps", {1}, {-2}));
    m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    m.output("y");
    EXPECT_EQ(migx_test::run(m.parse(), {{"x", {0, 1, 2, 3, 4}}}), (std::vector<float>{4, 2}));
}

TEST(onnx_ops, resize_nearest_upsamples)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {1, 1, 1, 2});
    m.initializer(onnx_model::tensor("scales", {4}, {1, 1, 2, 2}));
    auto& n = m.node("Resize", {"x", "", "scales"}, {"y"});
    onnx_model::attr(n, "mode", std::string("nearest"));
    m.output("y");
    auto p = m.parse();
    EXPECT_EQ(p.get_outputs().at("y").lens(), (std::vector<std::size_t>{1, 1, 2, 4}));
    EXPECT_EQ(migx_test::run(p, {{"x", {1, 2}}}), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2}));
}

TEST(onnx_ops, einsum_batched_matmul_uses_dot)
{
    onnx_model m;
    m.input("a", TensorProto::FLOAT, {2, 1, 2});
    m.input("b", TensorProto::FLOAT, {2, 2, 1});
    onnx_model::attr(m.node("Einsum", {"a", "b"}, {"y"}), "equation", std::string("bij,bjk->bik"));
    m.output("y");
    auto p = m.parse();
    EXPECT_EQ(count_ops(p, "dot"), 1u);
    EXPECT_EQ(migx_test::run(p, {{"a", {1, 2, 3, 4}}, {"b", {5, 6, 7, 8}}}), (std::vector<float>{17, 53}));
}

TEST(onnx_ops, bernoulli_is_uniform_less_than_p)
{
    onnx_model m;
    m.input("p", TensorProto::FLOAT, {4});
    auto& n = m.node("Bernoulli", {"p"}, {"y"});
    onnx_model::attr(n, "dtype", std::int64_t{TensorProto::INT32});
    onnx_model::attr(n, "seed", 3.0f);
    m.output("y");
    auto p = m.parse();
    EXPECT_EQ(count_ops(p, "random_uniform"), 1u);
    EXPECT_EQ(count_ops(p, "less"), 1u);
    EXPECT_EQ(p.get_outputs().at("y").type(), migraphx::shape::int32_type);
    // Probabilities 0 and 1 give certain outcomes whatever the draws.
    EXPECT_EQ(migx_test::run(p, {{"p", {0, 1, 1, 0}}}), (std::vector<float>{0, 1, 1, 0}));
    // Without dtype the output has the input's type.
    onnx_model m2;
    m2.input("p", TensorProto::DOUBLE, {2});
    m2.node("Bernoulli", {"p"}, {"y"});
    m2.output("y");
    EXPECT_EQ(m2.parse().get_outputs().at("y").type(), migraphx::shape::double_type);
}

TEST(onnx_ops, maxroipool_pools_each_roi)
{
    onnx_model m(1);
    m.input("x", TensorProto::FLOAT, {1, 1, 2, 2});
    m.input("rois", TensorProto::FLOAT, {2, 5});
    auto& n = m.node("MaxRoiPool", {"x", "rois"}, {"y"});
    onnx_model::attr(n, "pooled_shape", std::vector<std::int64_t>{1, 2});
    onnx_model::attr(n, "spatial_scale", 0.5f);
    m.output("y");
    auto p = m.parse();
    EXPECT_EQ(p.get_outputs().at("y").lens(), (std::vector<std::size_t>{2, 1, 1, 2}));
    // Roi 1 covers the image (corners 0 and 2*0.5 = 1); roi 2 only pixel (1, 1).
    auto r = migx_test::run(p, {{"x", {1, 2, 3, 4}}, {"rois", {0, 0, 0, 2, 2, 0, 2, 2, 2, 2}}});
    EXPECT_EQ(r, (std::vector<float>{3, 4, 4, 4}));
    // pooled_shape is required.
    onnx_model bad(1);
    bad.input("x", TensorProto::FLOAT, {1, 1, 2, 2});
    bad.input("rois", TensorProto::FLOAT, {2, 5});
    bad.node("MaxRoiPool", {"x", "rois"}, {"y"});
    bad.output("y");
    EXPECT_THROW(bad.parse(), migraphx::exception);
}

// x[x > t] as torch exports it: NonZero -> Transpose -> GatherND, whose indices have a
// data-dependent number of rows (fewer than the declared maximum): the parser uses the gathernd
// op, which reads their actual shape (the flat-index composition broadcast constants to the
// declared shape and failed at run time). Constant indices keep the composition.
TEST(onnx_ops, gathernd_of_nonzero_indices_takes_their_actual_count)
{
    for(int rank : {1, 2})
    {
        onnx_model m;
        std::vector<std::int64_t> dims = rank == 1 ? std::vector<std::int64_t>{6} : std::vector<std::int64_t>{2, 3};
        m.input("x", TensorProto::FLOAT, dims);
        m.initializer(onnx_model::tensor("t", {}, {0.5f}));
        m.node("Greater", {"x", "t"}, {"mask"});
        m.node("NonZero", {"mask"}, {"nz"});
        onnx_model::attr(m.node("Transpose", {"nz"}, {"idx"}), "perm", std::vector<std::int64_t>{1, 0});
        m.node("GatherND", {"x", "idx"}, {"y"});
        m.output("y");
        auto p = m.parse();
        EXPECT_EQ(count_ops(p, "gathernd"), 1u) << "rank " << rank;
        EXPECT_EQ(p.get_outputs().at("y").lens(), (std::vector<std::size_t>{6})) << "declared: the largest";
        p.compile(migraphx::ref::target{});
        std::vector<float> x{0.9f, 0.1f, 0.7f, 0.6f, 0.2f, 0.95f};
        migraphx::parameter_map params{{"x", migraphx::argument{p.get_parameter_shapes().at("x"), x.data()}}};
        auto y = p.eval(params).at(0);
        EXPECT_EQ(y.get_shape().lens(), (std::vector<std::size_t>{4})) << "rank " << rank;
        EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0.9f, 0.7f, 0.6f, 0.95f})) << "rank " << rank;
    }
    onnx_model c;
    c.input("x", TensorProto::FLOAT, {2, 3});
    c.initializer(onnx_model::int_tensor("idx", {2, 2}, {1, 2, 0, -1}));
    c.node("GatherND", {"x", "idx"}, {"y"});
    c.output("y");
    auto p = c.parse();
    EXPECT_EQ(count_ops(p, "gathernd"), 0u);
    EXPECT_EQ(migx_test::run(p, {{"x", {0, 1, 2, 3, 4, 5}}}), (std::vector<float>{5, 2}));
}

TEST(onnx_ops, rnn_weights_of_the_wrong_shape_throw)
{
    // The fuzzer found an LSTM whose R had rank 2 (read past its lens); W and R must fit X.
    auto lstm = [](std::vector<std::int64_t> w, std::vector<std::int64_t> r) {
        onnx_model m;
        m.input("x", TensorProto::FLOAT, {3, 1, 2});
        m.input("w", TensorProto::FLOAT, w);
        m.input("r", TensorProto::FLOAT, r);
        onnx_model::attr(m.node("LSTM", {"x", "w", "r"}, {"y"}), "hidden_size", std::int64_t{2});
        m.output("y");
        return m;
    };
    EXPECT_NO_THROW(lstm({1, 8, 2}, {1, 8, 2}).parse());
    EXPECT_THROW(lstm({1, 8, 2}, {8, 2}).parse(), migraphx::exception);
    EXPECT_THROW(lstm({1, 8, 3}, {1, 8, 2}).parse(), migraphx::exception);
    EXPECT_THROW(lstm({1, 6, 2}, {1, 6, 2}).parse(), migraphx::exception);
    EXPECT_THROW(lstm({2, 8, 2}, {2, 8, 2}).parse(), migraphx::exception);
}

TEST(onnx_ops, lstm_is_one_op_with_its_activations)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {3, 1, 2});
    m.input("w", TensorProto::FLOAT, {1, 8, 2});
    m.input("r", TensorProto::FLOAT, {1, 8, 2});
    auto& n = m.node("LSTM", {"x", "w", "r"}, {"y"});
    onnx_model::attr(n, "hidden_size", std::int64_t{2});
    auto* acts = n.add_attribute();
    acts->set_name("activations");
    acts->set_type(onnx::AttributeProto::STRINGS);
    for(const auto* f : {"HardSigmoid", "Tanh", "LeakyRelu"})
        acts->add_strings(f);
    auto* alpha = n.add_attribute();
    alpha->set_name("activation_alpha");
    alpha->set_type(onnx::AttributeProto::FLOATS);
    alpha->add_floats(0.25f);
    alpha->add_floats(0.125f);
    m.output("y");
    auto p = m.parse();
    ASSERT_EQ(count_ops(p, "lstm"), 1u);
    for(auto it = p.get_main_module()->begin(); it != p.get_main_module()->end(); ++it)
        if(it->name() == "lstm")
            EXPECT_EQ(it->get_operator().to_value().at("actv_funcs").to_vector<std::string>(),
                      (std::vector<std::string>{"hardsigmoid(0.25)", "tanh", "leakyrelu(0.125)"}));
}

TEST(onnx_ops, lstm_batch_first_layout_transposes_the_initial_states)
{
    // layout = 1: X {batch, seq, in}, initial_h / initial_c and Y_h {batch, dirs, hidden}.
    const std::int64_t seq = 2, batch = 3, in = 2, h = 2, dirs = 2;
    auto model = [&](bool batch_first) {
        onnx_model m;
        m.input("x", TensorProto::FLOAT, batch_first ? std::vector<std::int64_t>{batch, seq, in} : std::vector<std::int64_t>{seq, batch, in});
        m.input("w", TensorProto::FLOAT, {dirs, 4 * h, in});
        m.input("r", TensorProto::FLOAT, {dirs, 4 * h, h});
        std::vector<std::int64_t> state = batch_first ? std::vector<std::int64_t>{batch, dirs, h} : std::vector<std::int64_t>{dirs, batch, h};
        m.input("h0", TensorProto::FLOAT, state);
        m.input("c0", TensorProto::FLOAT, state);
        auto& n = m.node("LSTM", {"x", "w", "r", "", "", "h0", "c0"}, {"", "yh"});
        onnx_model::attr(n, "hidden_size", h);
        onnx_model::attr(n, "direction", std::string{"bidirectional"});
        onnx_model::attr(n, "layout", std::int64_t{batch_first ? 1 : 0});
        m.output("yh");
        return m.parse();
    };
    auto values = [](std::size_t n, float scale) {
        std::vector<float> v(n);
        for(std::size_t i = 0; i < n; i++)
            v[i] = scale * std::sin(0.9f * static_cast<float>(i) + scale);
        return v;
    };
    // a[i][j][k] -> a[j][i][k] for {n0, n1, n2}
    auto swap01 = [](const std::vector<float>& a, std::size_t n0, std::size_t n1, std::size_t n2) {
        std::vector<float> r(a.size());
        for(std::size_t i = 0; i < n0; i++)
            for(std::size_t j = 0; j < n1; j++)
                for(std::size_t k = 0; k < n2; k++)
                    r[(j * n0 + i) * n2 + k] = a[(i * n1 + j) * n2 + k];
        return r;
    };
    auto x = values(seq * batch * in, 0.7f), w = values(dirs * 4 * h * in, 0.5f), r = values(dirs * 4 * h * h, 0.4f);
    auto h0 = values(batch * dirs * h, 0.8f), c0 = values(batch * dirs * h, 0.6f);
    auto first = migx_test::run(model(true), {{"x", x}, {"w", w}, {"r", r}, {"h0", h0}, {"c0", c0}});
    auto plain = migx_test::run(model(false), {{"x", swap01(x, batch, seq, in)}, {"w", w}, {"r", r},
                                              {"h0", swap01(h0, batch, dirs, h)}, {"c0", swap01(c0, batch, dirs, h)}});
    auto expected = swap01(plain, dirs, batch, h);
    ASSERT_EQ(first.size(), expected.size());
    for(std::size_t i = 0; i < first.size(); i++)
        EXPECT_NEAR(first[i], expected[i], 1e-6) << i;
}

TEST(onnx_ops, unsupported_features_throw)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {1, 1, 4, 4});
    auto& n = m.node("AveragePool", {"x"}, {"y"}, "pool");
    onnx_model::attr(n, "kernel_shape", std::vector<std::int64_t>{2, 2});
    onnx_model::attr(n, "auto_pad", std::string("SOMETIMES"));
    m.output("y");
    EXPECT_THROW(m.parse(), migraphx::exception);
}

#endif
