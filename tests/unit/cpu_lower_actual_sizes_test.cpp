// cpu::lower_actual_sizes before/after: convolutions, ConvTransposes and dots computed from a
// data-dependent result become oneDNN ops, float elementwise ops cpu::pointwise kernels, and a compiled program runs them at whatever sizes it
// gets, run after run (a primitive per size), as ref computes them.
#include <migraphx/generate.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include "cpu_test_util.hpp"
#include <thread>
#ifdef MIGRAPHX_HAVE_CPU
#include "passes/pass_manager.hpp"
#include "targets/cpu/lower_actual_sizes.hpp"
#endif

using migraphx::make_op;
using migraphx::shape;

namespace {

constexpr std::size_t declared_rows = 12;

/// The rows of x where the parameter m (declared 12 values) is above 0.5: a data-dependent count.
migraphx::instruction_ref selected_rows(migraphx::module& m, migraphx::instruction_ref x)
{
    auto mask = m.add_parameter("m", shape{shape::float_type, {declared_rows}});
    auto half = m.add_instruction(make_op("multibroadcast", {{"out_lens", std::vector<std::size_t>{declared_rows}}}),
                                  m.add_literal(migraphx::literal{0.5f}));
    auto nz   = m.add_instruction(make_op("nonzero"), m.add_instruction(make_op("greater"), mask, half));
    auto idx  = m.add_instruction(make_op("squeeze", {{"axes", std::vector<std::int64_t>{0}}}), nz);
    return m.add_instruction(make_op("gather", {{"axis", 0}}), x, idx);
}

/// The rows of x where m > 0.5 (a data-dependent count, declared 12), then a 3x3 convolution
/// with relu, a stride-2 ConvTranspose of it with a bias and a sigmoid, and a dot of the flattened rows; a static
/// convolution of x beside them.
migraphx::program heads_on_selected_rows()
{
    migraphx::program p;
    auto* m   = p.get_main_module();
    auto x    = m->add_parameter("x", shape{shape::float_type, {declared_rows, 8, 5, 5}});
    auto rows = selected_rows(*m, x);
    auto w    = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 8, 3, 3}}, 1));
    auto conv = m->add_instruction(make_op("convolution", {{"padding", std::vector<std::size_t>{1, 1}}}), rows, w);
    auto act  = m->add_instruction(make_op("relu"), conv);
    auto wt   = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 4, 2, 2}}, 2));
    auto up   = m->add_instruction(make_op("convolution_backwards", {{"stride", std::vector<std::size_t>{2, 2}}}), act, wt);
    // the mask head's end: a per-channel bias and a sigmoid
    auto bias = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {4}}, 4));
    auto bb   = m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", up->get_shape().lens()}}), bias);
    auto mask_out = m->add_instruction(make_op("sigmoid"), m->add_instruction(make_op("add"), up, bb));
    auto flat = m->add_instruction(make_op("reshape", {{"dims", std::vector<std::int64_t>{-1, 8 * 5 * 5}}}), act);
    auto wd   = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {8 * 5 * 5, 16}}, 3));
    auto fc   = m->add_instruction(make_op("dot"), flat, wd);
    auto stat = m->add_instruction(make_op("convolution"), x, w);
    m->add_return({mask_out, fc, stat});
    return p;
}

migraphx::parameter_map inputs_selecting(std::size_t count, std::vector<float>& x, std::vector<float>& mask)
{
    x.resize(declared_rows * 8 * 5 * 5);
    for(std::size_t i = 0; i < x.size(); i++)
        x[i] = static_cast<float>((i * 7 + count) % 11) * 0.2f - 1.0f;
    mask.assign(declared_rows, 0.0f);
    for(std::size_t i = 0; i < count; i++)
        mask[(i * 5) % declared_rows] = 1.0f; // 5 and 12 are coprime: count distinct rows
    return {{"x", migraphx::argument{shape{shape::float_type, {declared_rows, 8, 5, 5}}, x.data()}},
            {"m", migraphx::argument{shape{shape::float_type, {declared_rows}}, mask.data()}}};
}

/// Each output of a against b: same lens, values within float-vs-double rounding.
void expect_close(const std::vector<migraphx::argument>& got, const std::vector<migraphx::argument>& want,
                  const std::string& what)
{
    ASSERT_EQ(got.size(), want.size()) << what;
    for(std::size_t i = 0; i < got.size(); i++)
    {
        ASSERT_EQ(got[i].get_shape().lens(), want[i].get_shape().lens()) << what << ", output " << i;
        auto a = want[i].to_vector<double>(), b = got[i].to_vector<double>();
        std::size_t bad = 0;
        for(std::size_t j = 0; j < a.size(); j++)
            bad += std::abs(a[j] - b[j]) > 1e-4 + 1e-4 * std::abs(a[j]) ? 1 : 0;
        EXPECT_EQ(bad, 0u) << what << ", output " << i << ": " << bad << " of " << a.size() << " values differ";
    }
}

} // namespace

#ifdef MIGRAPHX_HAVE_CPU
TEST(cpu_lower_actual_sizes, ops_on_data_dependent_sizes_become_onednn_ops)
{
    auto p  = heads_on_selected_rows();
    auto& m = *p.get_main_module();
    auto before = migx_test::op_names(m);
    EXPECT_EQ(std::count(before.begin(), before.end(), "convolution"), 2);
    EXPECT_EQ(std::count(before.begin(), before.end(), "convolution_backwards"), 1);
    EXPECT_EQ(std::count(before.begin(), before.end(), "dot"), 1);
    migraphx::run_passes(m, {migraphx::cpu::lower_actual_sizes{}});
    auto after = migx_test::op_names(m);
    EXPECT_EQ(std::count(after.begin(), after.end(), "dnnl::convolution"), 1);
    EXPECT_EQ(std::count(after.begin(), after.end(), "dnnl::deconvolution"), 1);
    EXPECT_EQ(std::count(after.begin(), after.end(), "dnnl::matmul"), 1);
    // the static convolution is not this pass's (cpu::lower_dnnl's, with its fusions and layouts)
    EXPECT_EQ(std::count(after.begin(), after.end(), "convolution"), 1);
    EXPECT_EQ(std::count(after.begin(), after.end(), "convolution_backwards"), 0);
    EXPECT_EQ(std::count(after.begin(), after.end(), "dot"), 0);
    // relu, the bias add and sigmoid: kernels built per run for the sizes they get
    EXPECT_EQ(std::count(before.begin(), before.end(), "relu") + std::count(before.begin(), before.end(), "add") +
                  std::count(before.begin(), before.end(), "sigmoid"),
              3);
    EXPECT_EQ(std::count(after.begin(), after.end(), "cpu::pointwise"), 3);
    EXPECT_EQ(std::count(after.begin(), after.end(), "relu") + std::count(after.begin(), after.end(), "add") +
                  std::count(after.begin(), after.end(), "sigmoid"),
              0);
    // everything else as it was
    EXPECT_EQ(after.size(), before.size());
}
#endif

TEST(cpu_lower_actual_sizes, one_compiled_program_runs_every_size_as_ref)
{
    MIGX_REQUIRE_CPU();
    auto p   = heads_on_selected_rows();
    auto cpu = p;
    auto ref = p;
    cpu.compile(migraphx::get_target("cpu"));
    ref.compile(migraphx::ref::target{});
    auto text = [](const migraphx::program& q) {
        std::ostringstream ss;
        ss << q;
        return ss.str();
    };
    EXPECT_NE(text(cpu).find("dnnl::deconvolution"), std::string::npos) << text(cpu);
    // more sizes than the op keeps primitives for (8), then the first ones again; 0 rows too
    for(std::size_t count : {3, 1, 12, 0, 5, 2, 7, 9, 4, 11, 3, 1, 0, 12})
    {
        std::vector<float> x, mask;
        auto params = inputs_selecting(count, x, mask);
        auto got    = cpu.eval(params);
        ASSERT_EQ(got.at(0).get_shape().lens(), (std::vector<std::size_t>{count, 4, 10, 10}));
        expect_close(got, ref.eval(params), std::to_string(count) + " rows");
    }
}

TEST(cpu_lower_actual_sizes, threads_running_different_sizes_get_their_own_results)
{
    MIGX_REQUIRE_CPU();
    auto p = heads_on_selected_rows();
    auto cpu = p, ref = p;
    cpu.compile(migraphx::get_target("cpu"));
    ref.compile(migraphx::ref::target{});
    std::vector<std::vector<migraphx::argument>> want;
    for(std::size_t t = 0; t < 4; t++)
    {
        std::vector<float> x, mask;
        want.push_back(ref.eval(inputs_selecting(2 + 3 * t, x, mask)));
    }
    std::vector<std::vector<std::vector<migraphx::argument>>> got(4);
    std::vector<std::thread> threads;
    for(std::size_t t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            std::vector<float> x, mask;
            auto params = inputs_selecting(2 + 3 * t, x, mask);
            for(int r = 0; r < 20; r++)
                got[t].push_back(cpu.eval(params));
        });
    for(auto& th : threads)
        th.join();
    for(std::size_t t = 0; t < 4; t++)
        for(const auto& run : got[t])
            expect_close(run, want[t], "thread " + std::to_string(t));
}

namespace {

/// The selected rows of x through three convolutions: 3x3 with constant weights, 1x1 with
/// constant weights, 3x3 with weights given as the parameter "w".
migraphx::program three_convolutions_on_selected_rows()
{
    migraphx::program p;
    auto* m   = p.get_main_module();
    auto x    = m->add_parameter("x", shape{shape::float_type, {declared_rows, 8, 5, 5}});
    auto rows = selected_rows(*m, x);
    auto wp   = m->add_parameter("w", shape{shape::float_type, {8, 8, 3, 3}});
    auto pad1 = make_op("convolution", {{"padding", std::vector<std::size_t>{1, 1}}});
    auto w3   = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 8, 3, 3}}, 5));
    auto w1   = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 8, 1, 1}}, 6));
    auto c3   = m->add_instruction(pad1, rows, w3);
    auto c1   = m->add_instruction(make_op("convolution"), c3, w1);
    auto cp   = m->add_instruction(pad1, c1, wp);
    m->add_return({cp});
    return p;
}

} // namespace

#ifdef MIGRAPHX_HAVE_CPU
TEST(cpu_lower_actual_sizes, convolutions_larger_than_1x1_run_in_onednns_layout_constant_weights_packed_once)
{
    auto p  = three_convolutions_on_selected_rows();
    auto& m = *p.get_main_module();
    migraphx::run_passes(m, {migraphx::cpu::lower_actual_sizes{}});
    std::vector<std::pair<bool, bool>> flags; // (any_layout, constant_weights) in program order
    for(const auto& ins : m)
        if(ins.name() == "dnnl::convolution")
        {
            auto v = ins.get_operator().to_value();
            flags.emplace_back(v.at("any_layout").get_bool(), v.at("constant_weights").get_bool());
        }
    ASSERT_EQ(flags.size(), 3u);
    EXPECT_EQ(flags[0], std::make_pair(true, true)) << "3x3, constant weights";
    EXPECT_EQ(flags[1], std::make_pair(false, true)) << "1x1: a GEMM on plain tensors already";
    EXPECT_EQ(flags[2], std::make_pair(true, false)) << "3x3, weights a parameter";
}
#endif

TEST(cpu_lower_actual_sizes, blocked_layouts_and_packed_weights_give_refs_results_as_sizes_and_weights_change)
{
    MIGX_REQUIRE_CPU();
    auto p   = three_convolutions_on_selected_rows();
    auto cpu = p, ref = p;
    cpu.compile(migraphx::get_target("cpu"));
    ref.compile(migraphx::ref::target{});
    std::vector<float> w(8 * 8 * 3 * 3);
    for(std::size_t count : {5, 12, 0, 5, 1})
        for(int version = 0; version < 2; version++)
        {
            // the weights parameter changes between runs in the same buffer: a packed copy kept
            // from the last run would give the old weights' results
            for(std::size_t i = 0; i < w.size(); i++)
                w[i] = static_cast<float>((i * 13 + static_cast<std::size_t>(version) * 7) % 17) * 0.1f - 0.8f;
            std::vector<float> x, mask;
            auto params = inputs_selecting(count, x, mask);
            params["w"] = migraphx::argument{shape{shape::float_type, {8, 8, 3, 3}}, w.data()};
            expect_close(cpu.eval(params), ref.eval(params),
                         std::to_string(count) + " rows, weights " + std::to_string(version));
        }
}
