// cpu::dnnl_deconvolution (ONNX ConvTranspose, op convolution_backwards, on oneDNN): the compiled
// cpu program against ref for groups, strides, paddings, dilations, 1-3 spatial dims and
// transposed weights; what it refuses.
#include <migraphx/generate.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include "cpu_test_util.hpp"
#ifdef MIGRAPHX_HAVE_CPU
#include "targets/cpu/dnnl_ops.hpp"
#endif

using migraphx::make_op;
using migraphx::shape;

namespace {

struct deconv_case
{
    std::vector<std::size_t> x, w;
    migraphx::value attrs;
    bool transposed_weights = false; // w given as a transpose of a literal (non-standard strides)
};

migraphx::program deconv_program(const deconv_case& c)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, c.x});
    migraphx::instruction_ref w;
    if(c.transposed_weights)
    {
        auto lens = c.w;
        std::swap(lens[0], lens[1]);
        std::vector<std::int64_t> perm(lens.size());
        for(std::size_t i = 0; i < perm.size(); i++)
            perm[i] = static_cast<std::int64_t>(i);
        std::swap(perm[0], perm[1]);
        w = m->add_instruction(make_op("transpose", {{"permutation", perm}}),
                               m->add_literal(migraphx::generate_literal(shape{shape::float_type, lens}, 4)));
    }
    else
        w = m->add_literal(migraphx::generate_literal(shape{shape::float_type, c.w}, 4));
    m->add_return({m->add_instruction(make_op("convolution_backwards", c.attrs), x, w)});
    return p;
}

std::string ops_of(const migraphx::program& p)
{
    std::ostringstream ss;
    ss << p;
    return ss.str();
}

} // namespace

TEST(cpu_dnnl_deconvolution, matches_ref)
{
    MIGX_REQUIRE_CPU();
    using v = std::vector<std::size_t>;
    std::vector<deconv_case> cases = {
        {{2, 8, 7, 7}, {8, 4, 2, 2}, {{"stride", v{2, 2}}}},                           // Mask R-CNN's upsampling
        {{1, 6, 5, 5}, {6, 2, 3, 3}, {{"stride", v{2, 2}}, {"group", 3}}},              // groups
        {{1, 4, 6, 5}, {4, 3, 3, 3}, {{"padding", v{1, 0, 1, 2}}, {"stride", v{2, 1}}}}, // asymmetric padding
        {{1, 4, 5, 5}, {4, 3, 3, 3}, {{"dilation", v{2, 2}}, {"padding", v{1, 1}}}},
        {{2, 3, 9}, {3, 5, 4}, {{"stride", v{3}}, {"padding", v{1}}, {"dilation", v{1}}}}, // 1-d
        {{1, 2, 3, 4, 3}, {2, 3, 2, 2, 2}, {{"stride", v{1, 2, 1}}, {"padding", v{0, 0, 0}}, {"dilation", v{1, 1, 1}}}},
        {{1, 4, 5, 5}, {4, 6, 3, 3}, {{"stride", v{2, 2}}}, true}, // weights with other strides
    };
    for(std::size_t i = 0; i < cases.size(); i++)
    {
        SCOPED_TRACE("case " + std::to_string(i));
        auto cpu = migx_test::expect_cpu_matches_ref(deconv_program(cases[i]));
        EXPECT_NE(ops_of(cpu).find("dnnl::deconvolution"), std::string::npos) << ops_of(cpu);
    }
}

TEST(cpu_dnnl_deconvolution, auto_padding_stays_a_reference_op)
{
    MIGX_REQUIRE_CPU();
    // padding_mode other than 0 (explicit pads) is the reference op's to resolve
    auto cpu = migx_test::expect_cpu_matches_ref(
        deconv_program({{1, 4, 5, 5}, {4, 3, 3, 3}, {{"padding_mode", 1}, {"stride", std::vector<std::size_t>{2, 2}}}}));
    EXPECT_EQ(ops_of(cpu).find("dnnl::deconvolution"), std::string::npos) << ops_of(cpu);
}

#ifdef MIGRAPHX_HAVE_CPU
TEST(cpu_dnnl_deconvolution, bad_shapes_are_refused_by_name)
{
    migraphx::cpu::dnnl_deconvolution op;
    op.padding  = {0, 0, 0, 0};
    op.stride   = {2, 2};
    op.dilation = {1, 1};
    auto out = op.compute_shape({shape{shape::float_type, {1, 8, 7, 7}}, shape{shape::float_type, {8, 4, 2, 2}}});
    EXPECT_EQ(out.lens(), (std::vector<std::size_t>{1, 4, 14, 14}));
    auto throws_naming = [&](const std::vector<shape>& in, const std::string& what) {
        try
        {
            op.compute_shape(in);
            ADD_FAILURE() << "no error for " << what;
        }
        catch(const migraphx::exception& e)
        {
            EXPECT_NE(std::string(e.what()).find("dnnl::deconvolution"), std::string::npos) << e.what();
        }
    };
    throws_naming({shape{shape::float_type, {1, 8, 7, 7}}, shape{shape::float_type, {6, 4, 2, 2}}}, "channels");
    throws_naming({shape{shape::float_type, {1, 8, 7, 7}}}, "one input");
    throws_naming({shape{shape::float_type, {1, 8, 7}}, shape{shape::float_type, {8, 4, 2, 2}}}, "ranks");
    op.padding = {4, 4, 4, 4};
    throws_naming({shape{shape::float_type, {1, 8, 2, 2}}, shape{shape::float_type, {8, 4, 2, 2}}}, "padding");
}
#endif

TEST(cpu_dnnl_deconvolution, constant_weights_reordered_once_and_weights_given_each_run_read_each_run)
{
    MIGX_REQUIRE_CPU();
    // constant weights: the op says so (it keeps their reorder); two runs give the same result
    auto cpu = migx_test::expect_cpu_matches_ref(
        deconv_program({{1, 4, 5, 5}, {4, 3, 2, 2}, {{"stride", std::vector<std::size_t>{2, 2}}}}));
    EXPECT_NE(ops_of(cpu).find("constant_weights=1"), std::string::npos) << ops_of(cpu);
    auto params = migx_test::generated_params(cpu);
    EXPECT_EQ(cpu.eval(params).at(0).to_vector<float>(), cpu.eval(params).at(0).to_vector<float>());
    // weights as a parameter: new values in the same buffer must be read, not a kept reorder
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 4, 5, 5}});
    auto w  = m->add_parameter("w", shape{shape::float_type, {4, 3, 2, 2}});
    m->add_return({m->add_instruction(
        make_op("convolution_backwards", {{"stride", std::vector<std::size_t>{2, 2}}}), x, w)});
    auto q = p;
    q.compile(migraphx::get_target("cpu"));
    EXPECT_NE(ops_of(q).find("constant_weights=0"), std::string::npos) << ops_of(q);
    std::vector<float> xv(100, 1.0f), wv(48, 1.0f);
    migraphx::parameter_map in{{"x", migraphx::argument{shape{shape::float_type, {1, 4, 5, 5}}, xv.data()}},
                               {"w", migraphx::argument{shape{shape::float_type, {4, 3, 2, 2}}, wv.data()}}};
    EXPECT_EQ(q.eval(in).at(0).to_vector<float>()[0], 4.0f); // 4 channels x 1 x 1
    std::fill(wv.begin(), wv.end(), 2.0f);
    EXPECT_EQ(q.eval(in).at(0).to_vector<float>()[0], 8.0f);
}
