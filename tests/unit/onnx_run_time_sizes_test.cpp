// The ONNX parser's sizes computed at run time (src/onnx): Shape of a value computed from a
// data-dependent result (NonZero, NonMaxSuppression...) is read at run time (dimensions_of), and
// the consumers torchvision's detectors use take such sizes at run time: TopK's K, ConstantOfShape,
// Expand, Reshape, an If on them (select_branch). Shape of a static value stays a literal.
#ifdef MIGX_TEST_HAVE_ONNX

#include "onnx_test_model.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/target.hpp>
#include <gtest/gtest.h>
#include <algorithm>

using migx_test::onnx_model;
using onnx::TensorProto;

namespace {

std::size_t count_ops(const migraphx::program& p, const std::string& name)
{
    const auto* mm = p.get_main_module();
    return std::count_if(mm->begin(), mm->end(), [&](const auto& ins) { return ins.name() == name; });
}

/// x {6} -> s = x[x > 0.5] (NonZero -> Transpose -> GatherND), s's declared length is 6.
void scores_above_half(onnx_model& m)
{
    m.input("x", TensorProto::FLOAT, {6});
    m.initializer(onnx_model::tensor("half", {}, {0.5f}));
    m.node("Greater", {"x", "half"}, {"mask"});
    m.node("NonZero", {"mask"}, {"nz"});
    onnx_model::attr(m.node("Transpose", {"nz"}, {"idx"}), "perm", std::vector<std::int64_t>{1, 0});
    m.node("GatherND", {"x", "idx"}, {"s"});
}

/// torchvision's _topk_min(s, 3, 0) then full_like(values, 7): K = min(3, len(s)), labels =
/// ConstantOfShape(Shape(values)).
onnx_model topk_then_labels()
{
    onnx_model m;
    scores_above_half(m);
    m.node("Shape", {"s"}, {"shp"});
    m.initializer(onnx_model::int_tensor("zero", {}, {0}));
    onnx_model::attr(m.node("Gather", {"shp", "zero"}, {"n"}), "axis", std::int64_t{0});
    m.initializer(onnx_model::int_tensor("axes0", {1}, {0}));
    m.node("Unsqueeze", {"n", "axes0"}, {"n1"});
    m.initializer(onnx_model::int_tensor("three", {1}, {3}));
    onnx_model::attr(m.node("Concat", {"three", "n1"}, {"both"}), "axis", std::int64_t{0});
    onnx_model::attr(m.node("ReduceMin", {"both"}, {"kmin"}), "keepdims", std::int64_t{0});
    m.node("Reshape", {"kmin", "three_shape"}, {"k"});
    m.initializer(onnx_model::int_tensor("three_shape", {1}, {1}));
    m.node("TopK", {"s", "k"}, {"values", "indices"});
    m.node("Shape", {"values"}, {"vshape"});
    onnx_model::attr(m.node("ConstantOfShape", {"vshape"}, {"labels"}), "value",
                     onnx_model::int_tensor("seven", {1}, {7}));
    m.output("values");
    m.output("labels");
    return m;
}

/// If node n's then_branch and else_branch.
void set_branches(onnx::NodeProto& n, onnx::GraphProto then_g, onnx::GraphProto else_g)
{
    then_g.set_name("then");
    else_g.set_name("else");
    for(auto [name, g] : {std::pair<const char*, onnx::GraphProto*>{"then_branch", &then_g}, {"else_branch", &else_g}})
    {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::GRAPH);
        *a->mutable_g() = *g;
    }
}

std::vector<migraphx::argument> run_ref(migraphx::program p, std::vector<float> x)
{
    p.compile(migraphx::ref::target{});
    return p.eval({{"x", migraphx::argument{p.get_parameter_shapes().at("x"), x.data()}}});
}

} // namespace

TEST(onnx_run_time_sizes, shape_of_a_static_value_stays_a_literal)
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {2, 3});
    m.node("Shape", {"x"}, {"shp"});
    m.output("shp");
    auto p = m.parse();
    EXPECT_EQ(count_ops(p, "dimensions_of"), 0u);
    EXPECT_EQ(count_ops(p, "@literal"), 1u);
    p.compile(migraphx::ref::target{});
    std::vector<float> x(6);
    auto r = p.eval({{"x", migraphx::argument{p.get_parameter_shapes().at("x"), x.data()}}});
    EXPECT_EQ(r.at(0).to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 3}));
}

TEST(onnx_run_time_sizes, shape_and_size_of_a_data_dependent_value_are_read_at_run_time)
{
    onnx_model m;
    scores_above_half(m);
    m.node("Shape", {"s"}, {"shp"});
    m.node("Size", {"s"}, {"size"});
    auto& start1 = m.node("Shape", {"s"}, {"empty"});
    onnx_model::attr(start1, "start", std::int64_t{1}); // no dims: a static (empty) value
    m.output("shp");
    m.output("size");
    m.output("empty");
    auto p = m.parse();
    EXPECT_EQ(count_ops(p, "dimensions_of"), 2u);
    auto r = run_ref(p, {0.9f, 0.1f, 0.7f, 0.6f, 0.2f, 0.3f});
    EXPECT_EQ(r.at(0).to_vector<std::int64_t>(), (std::vector<std::int64_t>{3})) << "not the declared 6";
    EXPECT_EQ(r.at(1).get_shape().lens(), (std::vector<std::size_t>{}));
    EXPECT_EQ(r.at(1).to_vector<std::int64_t>(), (std::vector<std::int64_t>{3}));
    EXPECT_EQ(r.at(2).get_shape().elements(), 0u);
}

// Before: K folded to min(3, 6) = 3 from the declared length, and with 2 scores TopK failed
// ("k=3 but the input holds only 2 values"); the labels had the declared length.
TEST(onnx_run_time_sizes, topk_k_and_constant_of_shape_follow_the_actual_count)
{
    auto p = topk_then_labels().parse();
    EXPECT_EQ(count_ops(p, "broadcast_with_dims"), 1u);
    // declared: the largest sizes
    EXPECT_EQ(p.get_outputs().at("values").lens(), (std::vector<std::size_t>{3}));
    EXPECT_EQ(p.get_outputs().at("labels").lens(), (std::vector<std::size_t>{3}));
    auto two = run_ref(p, {0.9f, 0.1f, 0.2f, 0.6f, 0.2f, 0.3f});
    EXPECT_EQ(two.at(0).to_vector<float>(), (std::vector<float>{0.9f, 0.6f}));
    EXPECT_EQ(two.at(1).to_vector<std::int64_t>(), (std::vector<std::int64_t>{7, 7}));
    auto five = run_ref(p, {0.9f, 0.8f, 0.7f, 0.6f, 0.95f, 0.3f});
    EXPECT_EQ(five.at(0).to_vector<float>(), (std::vector<float>{0.95f, 0.9f, 0.8f}));
    EXPECT_EQ(five.at(1).to_vector<std::int64_t>(), (std::vector<std::int64_t>{7, 7, 7}));
    auto none = run_ref(p, std::vector<float>(6, 0.0f));
    EXPECT_EQ(none.at(0).get_shape().elements(), 0u);
    EXPECT_EQ(none.at(1).get_shape().elements(), 0u);
}

#ifdef MIGRAPHX_HAVE_CPU
TEST(onnx_run_time_sizes, the_same_on_cpu)
{
    auto p = topk_then_labels().parse();
    p.compile(migraphx::get_target("cpu"));
    std::vector<float> x{0.9f, 0.1f, 0.2f, 0.6f, 0.2f, 0.3f};
    auto r = p.eval({{"x", migraphx::argument{p.get_parameter_shapes().at("x"), x.data()}}});
    EXPECT_EQ(r.at(0).to_vector<float>(), (std::vector<float>{0.9f, 0.6f}));
    EXPECT_EQ(r.at(1).to_vector<std::int64_t>(), (std::vector<std::int64_t>{7, 7}));
}
#endif

TEST(onnx_run_time_sizes, expand_and_reshape_to_run_time_shapes)
{
    onnx_model m;
    scores_above_half(m);
    m.node("Shape", {"s"}, {"shp"});
    m.initializer(onnx_model::tensor("one", {1, 1}, {1.0f}));
    m.initializer(onnx_model::int_tensor("col", {1}, {1}));
    onnx_model::attr(m.node("Concat", {"shp", "col"}, {"shp2"}), "axis", std::int64_t{0});
    m.node("Expand", {"one", "shp2"}, {"ones"});      // {n, 1}
    m.node("Reshape", {"s", "shp2"}, {"column"});     // {n, 1}
    m.output("ones");
    m.output("column");
    auto p = m.parse();
    EXPECT_EQ(count_ops(p, "broadcast_with_dims"), 1u);
    EXPECT_EQ(count_ops(p, "reshape_with_dims"), 1u);
    EXPECT_EQ(p.get_outputs().at("column").lens(), (std::vector<std::size_t>{6, 1}));
    auto r = run_ref(p, {0.9f, 0.1f, 0.7f, 0.6f, 0.2f, 0.3f});
    EXPECT_EQ(r.at(0).get_shape().lens(), (std::vector<std::size_t>{3, 1}));
    EXPECT_EQ(r.at(0).to_vector<float>(), (std::vector<float>{1, 1, 1}));
    EXPECT_EQ(r.at(1).get_shape().lens(), (std::vector<std::size_t>{3, 1}));
    EXPECT_EQ(r.at(1).to_vector<float>(), (std::vector<float>{0.9f, 0.7f, 0.6f}));
}

// torchvision's batched_nms: If(numel(boxes) == 0) then an empty tensor else the NMS's keep. The
// condition is known at run time only and the branches differ in size: the branch taken, whole.
TEST(onnx_run_time_sizes, if_on_a_run_time_size_takes_its_branch_whole)
{
    onnx_model m;
    scores_above_half(m);
    m.node("Shape", {"s"}, {"shp"});
    onnx_model::attr(m.node("ReduceProd", {"shp"}, {"numel"}), "keepdims", std::int64_t{0});
    m.initializer(onnx_model::int_tensor("zero", {}, {0}));
    m.node("Equal", {"numel", "zero"}, {"empty"});
    auto& n = m.node("If", {"empty"}, {"kept"});
    onnx::GraphProto then_g, else_g;
    auto* c = then_g.add_node();
    c->set_op_type("Constant");
    c->add_output("nothing");
    onnx_model::attr(*c, "value", onnx_model::tensor("nothing_t", {0}, {}));
    then_g.add_output()->set_name("nothing");
    auto* neg = else_g.add_node();
    neg->set_op_type("Neg");
    neg->add_input("s");
    neg->add_output("minus");
    else_g.add_output()->set_name("minus");
    set_branches(n, then_g, else_g);
    m.output("kept");
    auto p = m.parse();
    EXPECT_EQ(count_ops(p, "select_branch"), 1u);
    EXPECT_EQ(p.get_outputs().at("kept").lens(), (std::vector<std::size_t>{6}));
    auto some = run_ref(p, {0.9f, 0.1f, 0.7f, 0.6f, 0.2f, 0.3f});
    EXPECT_EQ(some.at(0).to_vector<float>(), (std::vector<float>{-0.9f, -0.7f, -0.6f}));
    auto none = run_ref(p, std::vector<float>(6, 0.0f));
    EXPECT_EQ(none.at(0).get_shape().lens(), (std::vector<std::size_t>{0}));
}

// torch.arange(len(s)): Range whose limit is computed from the Shape of a data-dependent result.
TEST(onnx_run_time_sizes, range_to_a_run_time_limit)
{
    onnx_model m;
    scores_above_half(m);
    m.node("Shape", {"s"}, {"shp"});
    m.initializer(onnx_model::int_tensor("zero", {}, {0}));
    m.initializer(onnx_model::int_tensor("one", {}, {1}));
    onnx_model::attr(m.node("Gather", {"shp", "zero"}, {"n"}), "axis", std::int64_t{0});
    m.node("Range", {"zero", "n", "one"}, {"r"});
    m.output("r");
    auto p = m.parse();
    EXPECT_EQ(count_ops(p, "range"), 1u);
    EXPECT_EQ(p.get_outputs().at("r").lens(), (std::vector<std::size_t>{6}));
    auto r = run_ref(p, {0.9f, 0.1f, 0.7f, 0.6f, 0.2f, 0.3f});
    EXPECT_EQ(r.at(0).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2}));
}

// A consumer that reads its sizes at parse time only (Slice's ends here) gets their declared
// values, as before run-time shapes: the sizes of the largest shapes (a limitation).
TEST(onnx_run_time_sizes, a_parse_time_consumer_gets_the_declared_value)
{
    onnx_model m;
    scores_above_half(m);
    m.node("Shape", {"s"}, {"shp"});
    m.initializer(onnx_model::int_tensor("zero", {1}, {0}));
    m.node("Slice", {"x", "zero", "shp"}, {"head"});
    m.output("head");
    auto p = m.parse();
    EXPECT_EQ(p.get_outputs().at("head").lens(), (std::vector<std::size_t>{6}));
    EXPECT_EQ(count_ops(p, "dimensions_of"), 1u); // dead: the slice's ends are literals
}

/// torchvision's MultiScaleRoIAlign: idx = nonzero(levels == l) as [K, 1] indices, then
/// `idx.squeeze(1)` exported as If(Shape(idx)[1] == 1, Squeeze, Identity): branches of other ranks.
onnx_model squeeze_guard_on_nonzero()
{
    onnx_model m;
    m.input("x", TensorProto::FLOAT, {6});
    m.initializer(onnx_model::tensor("half", {}, {0.5f}));
    m.node("Greater", {"x", "half"}, {"mask"});
    m.node("NonZero", {"mask"}, {"nz"});
    onnx_model::attr(m.node("Transpose", {"nz"}, {"idx"}), "perm", std::vector<std::int64_t>{1, 0});
    m.node("Shape", {"idx"}, {"shp"});
    m.initializer(onnx_model::int_tensor("one", {}, {1}));
    onnx_model::attr(m.node("Gather", {"shp", "one"}, {"d1"}), "axis", std::int64_t{0});
    m.node("Equal", {"d1", "one"}, {"is_one"});
    m.initializer(onnx_model::int_tensor("axes1", {1}, {1}));
    onnx::GraphProto then_g, else_g;
    auto* sq = then_g.add_node();
    sq->set_op_type("Squeeze");
    sq->add_input("idx");
    sq->add_input("axes1");
    sq->add_output("squeezed");
    then_g.add_output()->set_name("squeezed");
    auto* id = else_g.add_node();
    id->set_op_type("Identity");
    id->add_input("idx");
    id->add_output("same");
    else_g.add_output()->set_name("same");
    set_branches(m.node("If", {"is_one"}, {"picked"}), then_g, else_g);
    m.node("Gather", {"x", "picked"}, {"y"});
    m.output("y");
    return m;
}

TEST(onnx_run_time_sizes, a_static_dim_of_a_data_dependent_value_is_known_at_parse_time)
{
    // Shape(idx)[1] is NonZero's rank (1): a constant, so the If takes its squeeze branch at parse
    // time. Before dynamic_dims the parser refused the If (branches of ranks 1 and 2 on a
    // run-time condition).
    auto p = squeeze_guard_on_nonzero().parse();
    EXPECT_EQ(count_ops(p, "select_branch"), 0u);
    EXPECT_EQ(p.get_outputs().at("y").lens(), (std::vector<std::size_t>{6}));
    auto r = run_ref(p, {0.9f, 0.1f, 0.7f, 0.2f, 0.3f, 0.6f});
    EXPECT_EQ(r.at(0).to_vector<float>(), (std::vector<float>{0.9f, 0.7f, 0.6f}));
}

TEST(onnx_run_time_sizes, reshape_and_flatten_of_a_data_dependent_value_infer_at_run_time)
{
    // s = x[x > 0.5] (declared 6 long) -> Reshape to [-1, 1] -> Flatten(axis 0): a static reshape
    // of the declared 6 would not fit the actual count
    onnx_model m;
    scores_above_half(m);
    m.initializer(onnx_model::int_tensor("col", {2}, {-1, 1}));
    m.node("Reshape", {"s", "col"}, {"c"});
    onnx_model::attr(m.node("Flatten", {"c"}, {"f"}), "axis", std::int64_t{1});
    m.output("c");
    m.output("f");
    auto p = m.parse();
    EXPECT_EQ(count_ops(p, "reshape_with_dims"), 2u);
    auto r = run_ref(p, {0.9f, 0.1f, 0.7f, 0.2f, 0.3f, 0.6f});
    EXPECT_EQ(r.at(0).get_shape().lens(), (std::vector<std::size_t>{3, 1}));
    EXPECT_EQ(r.at(1).get_shape().lens(), (std::vector<std::size_t>{3, 1}));
    EXPECT_EQ(r.at(1).to_vector<float>(), (std::vector<float>{0.9f, 0.7f, 0.6f}));
}

TEST(onnx_run_time_sizes, bad_run_time_sizes_throw_naming_the_op)
{
    // A size computed as 7 - len(s) is not the largest at the declared length 6: with no score
    // above 0.5 it asks for 7 rows, more than the declared 1, which the op refuses.
    onnx_model m;
    scores_above_half(m);
    m.node("Shape", {"s"}, {"shp"});
    m.initializer(onnx_model::int_tensor("seven", {1}, {7}));
    m.node("Sub", {"seven", "shp"}, {"rest"});
    m.initializer(onnx_model::tensor("one", {1}, {1.0f}));
    m.node("Expand", {"one", "rest"}, {"y"});
    m.output("y");
    auto p = m.parse();
    EXPECT_EQ(p.get_outputs().at("y").lens(), (std::vector<std::size_t>{1}));
    try
    {
        run_ref(p, std::vector<float>(6, 0.0f));
        FAIL() << "expected an exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("broadcast_with_dims: the run-time sizes {7} exceed the declared"),
                  std::string::npos)
            << e.what();
    }
}

#endif
