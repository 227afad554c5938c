// gpu::rnn (cuDNN's recurrent kernels): which lstm, gru and rnn ops it takes (the rest are
// unrolled by rewrite_rnn), what the lowering makes of them (one op, its outputs views of one
// buffer), and on a device, against the reference ops: each cell, both directions, initial
// states, rows that stop early, weights that are not constants, half.
#include "gpu_test_util.hpp"
#include "rnn_test_util.hpp"
#include "scoped_env.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/rnn.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/quantization.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

using migx_test::make_rnn_program;
using migx_test::occurrences;
using migx_test::rnn_case;

namespace {

/// cudnn_rnn_for on the recurrent op of c's program.
std::optional<migraphx::gpu::rnn> taken(const rnn_case& c)
{
    auto p = make_rnn_program(c);
    auto* m = p.get_main_module();
    for(auto it = m->begin(); it != m->end(); ++it)
        if(it->name() == c.op)
            return migraphx::gpu::cudnn_rnn_for(it);
    return std::nullopt;
}

rnn_case bidirectional(rnn_case c)
{
    c.attrs["direction"] = "bidirectional";
    c.dirs               = 2;
    return c;
}

rnn_case reversed(rnn_case c)
{
    c.attrs["direction"] = "reverse";
    c.dirs               = 1;
    return c;
}

/// c at other sizes.
rnn_case sized(rnn_case c, std::size_t seq, std::size_t batch, std::size_t input, std::size_t hidden)
{
    c.seq    = seq;
    c.batch  = batch;
    c.input  = input;
    c.hidden = hidden;
    return c;
}

/// PyTorch's GRU (linear_before_reset), both directions.
rnn_case torch_gru()
{
    auto c  = bidirectional(rnn_case{});
    c.op    = "gru";
    c.attrs["linear_before_reset"] = 1;
    return c;
}

/// c's cell stacked `layers` deep as PyTorch exports num_layers: each layer's initial states zero
/// literals, its Y the next layer's X (squeezed, or a bidirectional one transposed and reshaped to
/// {seq, batch, 2 * hidden}); returns the last Y and every layer's Y_h (and Y_c), and with
/// `first_y` the first layer's Y too. `h0` (a parameter) replaces the second layer's zeros.
migraphx::program make_stack_program(const rnn_case& c, std::size_t layers, bool first_y = false, bool h0 = false)
{
    using migraphx::shape;
    using migraphx::make_op;
    migraphx::program p;
    auto& m   = *p.get_main_module();
    auto gh   = migx_test::rnn_gates(c.op) * c.hidden;
    bool lstm = c.op == "lstm";
    std::vector<std::size_t> state{c.dirs, c.batch, c.hidden};
    auto zeros = m.add_literal(migraphx::literal{shape{shape::float_type, state}, std::vector<float>(c.dirs * c.batch * c.hidden)});
    auto x     = m.add_parameter("x", shape{shape::float_type, {c.seq, c.batch, c.input}});
    std::vector<migraphx::instruction_ref> outs;
    for(std::size_t l = 0; l < layers; l++)
    {
        auto cols  = l == 0 ? c.input : c.dirs * c.hidden;
        auto salt  = static_cast<int>(10 * l);
        auto attrs = c.attrs;
        attrs["hidden_size"] = c.hidden;
        auto h = h0 and l == 1 ? m.add_parameter("h0", shape{shape::float_type, state}) : zeros;
        std::vector<migraphx::instruction_ref> in{x,
                                                  migx_test::rnn_weights(m, "w", {c.dirs, gh, cols}, false, salt + 1),
                                                  migx_test::rnn_weights(m, "r", {c.dirs, gh, c.hidden}, false, salt + 2),
                                                  migx_test::rnn_weights(m, "b", {c.dirs, 2 * gh}, false, salt + 3),
                                                  m.add_literal(migraphx::literal{shape{shape::int32_type, {c.batch}},
                                                                                  std::vector<std::int32_t>(c.batch, static_cast<std::int32_t>(c.seq))}),
                                                  h};
        if(lstm)
            in.push_back(zeros);
        auto r = m.add_instruction(make_op(c.op, attrs), in);
        auto y = m.add_instruction(make_op("get_tuple_elem", {{"index", 0}}), r);
        for(std::size_t i = 1; i < (lstm ? 3u : 2u); i++)
            outs.push_back(m.add_instruction(make_op("get_tuple_elem", {{"index", i}}), r));
        if(l + 1 == layers or (first_y and l == 0))
            outs.push_back(y);
        if(c.dirs == 1)
            x = m.add_instruction(make_op("squeeze", {{"axes", {1}}}), y);
        else
            x = m.add_instruction(make_op("reshape", {{"dims", {c.seq, c.batch, 2 * c.hidden}}}),
                                  m.add_instruction(make_op("transpose", {{"permutation", {0, 2, 1, 3}}}), y));
    }
    m.add_return(outs);
    return p;
}

/// On the device against ref; returns the compiled program's text.
std::string check(const rnn_case& c, double rtol = 1e-4, double atol = 1e-5)
{
    auto p = make_rnn_program(c);
    return migx_test::text(migx_test::expect_gpu_matches_ref(p, migx_test::rnn_params(p, c), rtol, atol));
}

} // namespace

TEST(gpu_rnn, takes_what_cudnn_computes)
{
    rnn_case lstm;
    ASSERT_TRUE(taken(lstm).has_value());
    EXPECT_EQ(taken(lstm)->cell, "lstm");
    EXPECT_TRUE(taken(lstm)->constant_weights);
    EXPECT_TRUE(taken(bidirectional(lstm))->bidirectional);
    EXPECT_TRUE(taken(reversed(lstm))->reverse);
    EXPECT_FALSE(taken(reversed(lstm))->bidirectional);
    EXPECT_EQ(taken(reversed(lstm))->cudnn_dirs(), 2u);
    auto full_rows = reversed(lstm);
    full_rows.lens = "full"; // sequence_lens a literal of whole rows
    EXPECT_TRUE(taken(full_rows).has_value());
    auto c0 = reversed(lstm);
    c0.c0   = true; // h0 a literal of zeros, c0 a parameter
    EXPECT_TRUE(taken(c0).has_value());
    auto reverse_h0 = reversed(rnn_case{});
    reverse_h0.h0   = true;
    EXPECT_TRUE(taken(reverse_h0).has_value());
    auto reverse_short = reversed(rnn_case{});
    reverse_short.lens = "short";
    EXPECT_EQ(taken(reverse_short)->seq_lens, (std::vector<std::int32_t>{3, 1}));

    rnn_case gru;
    gru.op    = "gru";
    gru.attrs = {{"linear_before_reset", 1}};
    ASSERT_TRUE(taken(gru).has_value());
    EXPECT_EQ(taken(gru)->cell, "gru");

    rnn_case relu;
    relu.op    = "rnn";
    relu.attrs = {{"actv_funcs", {"relu"}}};
    ASSERT_TRUE(taken(relu).has_value());
    EXPECT_EQ(taken(relu)->cell, "rnn_relu");

    rnn_case tanh;
    tanh.op = "rnn";
    EXPECT_EQ(taken(bidirectional(tanh))->cell, "rnn_tanh");

    rnn_case params;
    params.weights_as_params = true;
    EXPECT_FALSE(taken(params)->constant_weights);

    rnn_case full;
    full.lens = "full";
    EXPECT_TRUE(taken(full)->seq_lens.empty());
    rnn_case shorter;
    shorter.lens = "short";
    EXPECT_EQ(taken(shorter)->seq_lens, (std::vector<std::int32_t>{3, 1}));
}

TEST(gpu_rnn, leaves_what_cudnn_does_not)
{
    rnn_case gru; // ONNX's default GRU resets before the recurrent product; cuDNN's after
    gru.op = "gru";
    EXPECT_FALSE(taken(gru).has_value());
    rnn_case clip;
    clip.attrs = {{"clip", 2.0f}};
    EXPECT_FALSE(taken(clip).has_value());
    rnn_case peep;
    peep.peepholes = true;
    EXPECT_FALSE(taken(peep).has_value());
    rnn_case coupled;
    coupled.attrs = {{"input_forget", 1}};
    EXPECT_FALSE(taken(coupled).has_value());
    rnn_case runtime_lens;
    runtime_lens.lens = "param";
    EXPECT_FALSE(taken(runtime_lens).has_value());
    rnn_case act;
    act.attrs = {{"actv_funcs", {"sigmoid", "tanh", "relu"}}};
    EXPECT_FALSE(taken(act).has_value());
    rnn_case sig;
    sig.op    = "rnn";
    sig.attrs = {{"actv_funcs", {"sigmoid"}}};
    EXPECT_FALSE(taken(sig).has_value());
    rnn_case mixed = bidirectional(rnn_case{});
    mixed.op       = "rnn";
    mixed.attrs["actv_funcs"] = std::vector<std::string>{"tanh", "relu"};
    EXPECT_FALSE(taken(mixed).has_value());
    migx_test::scoped_env off{"MIGRAPHX_GPU_CUDNN_RNN", "0"};
    EXPECT_FALSE(taken(rnn_case{}).has_value());
}

TEST(gpu_rnn, parts_start_on_64_element_boundaries)
{
    auto p = migraphx::gpu::rnn_layout(3, 2, 2, 5, true); // Y 60, Y_h 20, Y_c 20
    EXPECT_EQ(p.y, 0u);
    EXPECT_EQ(p.h, 64u);
    EXPECT_EQ(p.c, 128u);
    EXPECT_EQ(p.total, 148u);
    auto g = migraphx::gpu::rnn_layout(4, 16, 1, 8, false); // Y 512, Y_h 128
    EXPECT_EQ(g.h, 512u);
    EXPECT_EQ(g.total, 640u);
}

TEST(gpu_rnn, lowering_keeps_one_op_instead_of_the_unrolled_steps)
{
    // Before (MIGRAPHX_GPU_CUDNN_RNN=0): a product and a gate kernel a step; after (the
    // default): one op, Y, Y_h and Y_c views of its buffer.
    auto c = bidirectional(rnn_case{});
    c.h0 = c.c0 = true;
    std::string before, after;
    {
        migx_test::scoped_env off{"MIGRAPHX_GPU_CUDNN_RNN", "0"};
        before = migx_test::lowered_for_gpu(make_rnn_program(c));
    }
    {
        migx_test::scoped_env unset{"MIGRAPHX_GPU_CUDNN_RNN", nullptr};
        after = migx_test::lowered_for_gpu(make_rnn_program(c));
    }
    EXPECT_EQ(occurrences(before, "gpu::rnn"), 0u) << before;
    EXPECT_GE(occurrences(before, "gpu::gemm"), 3u) << before;
    EXPECT_EQ(occurrences(after, "gpu::rnn["), 1u) << after;
    EXPECT_EQ(occurrences(after, "gpu::gemm"), 0u) << after;
    EXPECT_EQ(occurrences(after, " lstm["), 0u) << after;
    EXPECT_NE(after.find("cell=lstm"), std::string::npos) << after;
    EXPECT_NE(after.find("bidirectional=1"), std::string::npos) << after;
    // Y returned as it is: copied out of cuDNN's {seq, batch, 2, hidden} order.
    EXPECT_NE(after.find("permutation={0, 2, 1, 3}"), std::string::npos) << after;
}

TEST(gpu_rnn, a_reverse_direction_is_the_second_of_a_bidirectional_call)
{
    // Before (MIGRAPHX_GPU_CUDNN_RNN=0): unrolled; after: one gpu::rnn (reverse=1) whose Y, Y_h
    // and Y_c are views of the backward direction's part of cuDNN's buffer; not stacked.
    auto c = reversed(rnn_case{});
    c.lens = "full";
    std::string before;
    {
        migx_test::scoped_env off{"MIGRAPHX_GPU_CUDNN_RNN", "0"};
        before = migx_test::lowered_for_gpu(make_rnn_program(c));
    }
    auto after = migx_test::lowered_for_gpu(make_rnn_program(c));
    EXPECT_EQ(occurrences(before, "gpu::rnn"), 0u) << before;
    EXPECT_EQ(occurrences(after, "gpu::rnn["), 1u) << after;
    EXPECT_NE(after.find("reverse=1"), std::string::npos) << after;
    EXPECT_NE(after.find("bidirectional=0"), std::string::npos) << after;
    EXPECT_EQ(occurrences(after, " lstm["), 0u) << after;
    // the backward direction's slices: of Y {seq, batch, 2, hidden} on axis 2, of Y_h and Y_c on 0
    EXPECT_NE(after.find("slice[axes={2},starts={1},ends={2}]"), std::string::npos) << after;
    EXPECT_EQ(occurrences(after, "slice[axes={0},starts={1},ends={2}]"), 2u) << after;
    auto stacked = make_stack_program(reversed(rnn_case{}), 2);
    EXPECT_EQ(occurrences(migx_test::lowered_for_gpu(stacked), "gpu::rnn["), 2u);
}

TEST(gpu_rnn, a_stack_of_layers_lowers_to_one_op)
{
    // Before (MIGRAPHX_GPU_RNN_STACK=0): a gpu::rnn a layer; after (the default): one for the
    // stack, its Y_h and Y_c views of each layer's part. Not stacked: a layer whose Y is also read
    // elsewhere, or whose initial state is not zeros.
    for(auto c : {rnn_case{}, bidirectional(rnn_case{}), torch_gru()})
    {
        auto before = [&] {
            migx_test::scoped_env off{"MIGRAPHX_GPU_RNN_STACK", "0"};
            return migx_test::lowered_for_gpu(make_stack_program(c, 3));
        }();
        EXPECT_EQ(occurrences(before, "gpu::rnn["), 3u) << before;
        migx_test::scoped_env unset{"MIGRAPHX_GPU_RNN_STACK", nullptr};
        auto after = migx_test::lowered_for_gpu(make_stack_program(c, 3));
        EXPECT_EQ(occurrences(after, "gpu::rnn["), 1u) << after;
        EXPECT_NE(after.find("layers=3"), std::string::npos) << after;
        EXPECT_EQ(after.find(" " + c.op + "["), std::string::npos) << after; // the layers are gone
        // no copies between layers; a bidirectional Y returned is copied out of cuDNN's order
        EXPECT_EQ(occurrences(after, "gpu::code_object"), c.dirs - 1) << after;
        // the first Y read elsewhere: layers 2 and 3 a stack; the second layer's h0 a parameter:
        // every layer alone (a stack starts from zeros)
        EXPECT_EQ(occurrences(migx_test::lowered_for_gpu(make_stack_program(c, 3, true)), "gpu::rnn["), 2u);
        EXPECT_EQ(occurrences(migx_test::lowered_for_gpu(make_stack_program(c, 3, false, true)), "gpu::rnn["), 3u);
    }
}

TEST(gpu_rnn, a_stack_with_wrong_layer_shapes_is_refused)
{
    using migraphx::shape;
    migraphx::gpu::rnn op;
    op.hidden_size = 4;
    op.layers      = 2;
    auto f  = shape::float_type;
    auto out = shape{f, {migraphx::gpu::rnn_layout(3, 2, 1, 4, true, 2).total}};
    std::vector<shape> in{shape{f, {3, 2, 5}}, shape{f, {1, 16, 5}}, shape{f, {1, 16, 4}}, shape{f, {1, 32}},
                          shape{f, {1, 16, 4}}, shape{f, {1, 16, 4}}, shape{f, {1, 32}}, out};
    EXPECT_NO_THROW(op.compute_shape(in));
    in[4] = shape{f, {1, 16, 5}}; // the second layer reads hidden_size columns, not X's
    EXPECT_THROW(op.compute_shape(in), migraphx::exception);
    in[4] = shape{f, {1, 16, 4}};
    in.pop_back();
    EXPECT_THROW(op.compute_shape(in), migraphx::exception);
}

TEST(gpu_rnn, output_buffer_of_the_wrong_size_is_refused)
{
    migraphx::gpu::rnn op;
    op.hidden_size = 4;
    using migraphx::shape;
    std::vector<shape> in{shape{shape::float_type, {3, 2, 3}}, shape{shape::float_type, {1, 16, 3}},
                          shape{shape::float_type, {1, 16, 4}}, shape{shape::float_type, {10}}};
    EXPECT_THROW(op.compute_shape(in), migraphx::exception);
    in.back() = shape{shape::float_type, {migraphx::gpu::rnn_layout(3, 2, 1, 4, true).total}};
    EXPECT_NO_THROW(op.compute_shape(in));
    op.seq_lens = {3, 0};
    EXPECT_THROW(op.compute_shape(in), migraphx::exception);
}

TEST(gpu_rnn, lstm_matches_ref_on_device)
{
    MIGX_REQUIRE_GPU();
    for(int variant = 0; variant < 9; variant++)
    {
        // forward and bidirectional in turn; 5 to 8 reverse (7: initial h, 8: initial h and c)
        rnn_case c = variant >= 5 ? reversed(rnn_case{}) : variant % 2 == 0 ? rnn_case{} : bidirectional(rnn_case{});
        c.h0       = variant == 2 or variant == 3 or variant == 7 or variant == 8;
        c.c0       = variant == 3 or variant == 8;
        c.bias     = variant != 2 and variant != 4 and variant != 6; // 4, 6: no B and nothing after it
        auto t     = check(c);
        EXPECT_EQ(occurrences(t, "gpu::rnn["), 1u) << "variant " << variant << "\n" << t;
    }
}

TEST(gpu_rnn, gru_and_rnn_match_ref_on_device)
{
    MIGX_REQUIRE_GPU();
    auto gru = torch_gru();
    gru.h0   = true;
    EXPECT_EQ(occurrences(check(gru), "gpu::rnn["), 1u);
    auto backward = reversed(gru); // with its initial state
    EXPECT_EQ(occurrences(check(backward), "gpu::rnn["), 1u);
    backward.h0 = false;
    EXPECT_EQ(occurrences(check(backward), "gpu::rnn["), 1u);
    for(std::string f : {"tanh", "relu"})
    {
        rnn_case r;
        r.op    = "rnn";
        r.attrs = {{"actv_funcs", {f}}};
        EXPECT_EQ(occurrences(check(r), "gpu::rnn["), 1u) << f;
        EXPECT_EQ(occurrences(check(reversed(r)), "gpu::rnn["), 1u) << f << " reverse";
    }
}

TEST(gpu_rnn, rows_that_stop_early_and_weights_that_change_on_device)
{
    MIGX_REQUIRE_GPU();
    auto c = bidirectional(rnn_case{});
    c.lens = "short"; // the last row stops after one step: Y is zero past it
    c.h0   = true;
    EXPECT_EQ(occurrences(check(c), "gpu::rnn["), 1u);
    auto r = reversed(rnn_case{}); // reverse: each row starts at its own last step
    r.lens = "short";
    EXPECT_EQ(occurrences(check(r), "gpu::rnn["), 1u);
    r.h0 = r.c0 = true;
    EXPECT_EQ(occurrences(check(r), "gpu::rnn["), 1u);
    rnn_case w; // W, R and B parameters: loaded into cuDNN's weight space every run
    w.weights_as_params = true;
    EXPECT_EQ(occurrences(check(w), "gpu::rnn["), 1u);
}

TEST(gpu_rnn, half_matches_ref_on_device)
{
    MIGX_REQUIRE_GPU();
    for(auto c : {sized(bidirectional(rnn_case{}), 6, 3, 16, 16), sized(reversed(rnn_case{}), 6, 3, 16, 16)})
    {
        c.h0   = true;
        auto p = make_rnn_program(c);
        migraphx::quantize_fp16(p);
        auto t = migx_test::text(migx_test::expect_gpu_matches_ref(p, migx_test::fresh_params(p), 2e-2, 2e-3));
        EXPECT_EQ(occurrences(t, "gpu::rnn["), 1u) << t;
        EXPECT_NE(t.find("half_type"), std::string::npos) << t;
    }
}

TEST(gpu_rnn, a_longer_sequence_with_a_larger_state_on_device)
{
    MIGX_REQUIRE_GPU();
    auto c = sized(rnn_case{}, 40, 5, 24, 64);
    c.h0 = c.c0 = true;
    EXPECT_EQ(occurrences(check(c, 1e-3, 1e-4), "gpu::rnn["), 1u);
}

TEST(gpu_rnn, a_saved_program_loads_and_runs_the_same_on_device)
{
    // The op is saved by its attributes, the algorithm finalize chose among them; the load
    // builds cuDNN's descriptors again and loads the weights at its first run.
    MIGX_REQUIRE_GPU();
    auto c = torch_gru();
    auto p = make_rnn_program(c);
    migraphx::compile_options o;
    o.offload_copy = true;
    p.compile(migraphx::get_target("gpu"), o);
    EXPECT_EQ(migx_test::text(p).find("algo=,"), std::string::npos) << p;
    auto params = migx_test::rnn_params(p, c);
    auto want   = p.eval(params);
    auto path   = (std::filesystem::temp_directory_path() / "migx_gpu_rnn_test.mxr").string();
    migraphx::save(p, path);
    auto q = migraphx::load(path);
    std::remove(path.c_str());
    EXPECT_EQ(migx_test::text(q), migx_test::text(p));
    for(int run = 0; run < 3; run++)
    {
        auto got = q.eval(params);
        ASSERT_EQ(got.size(), want.size());
        for(std::size_t i = 0; i < got.size(); i++)
            migx_test::expect_close(got[i], want[i], 0, 0, "run " + std::to_string(run) + " output " + std::to_string(i));
    }
}

TEST(gpu_rnn, a_stack_matches_ref_on_device)
{
    MIGX_REQUIRE_GPU();
    migx_test::scoped_env on{"MIGRAPHX_GPU_RNN_STACK", nullptr}; // the default: stacked
    auto big = sized(bidirectional(rnn_case{}), 10, 3, 8, 16);
    for(auto c : {rnn_case{}, big, torch_gru()})
    {
        auto p = make_stack_program(c, 3);
        auto t = migx_test::text(migx_test::expect_gpu_matches_ref(p, migx_test::fresh_params(p), 1e-3, 1e-4));
        EXPECT_NE(t.find("layers=3"), std::string::npos) << t;
    }
    auto p = make_stack_program(big, 2);
    migraphx::quantize_fp16(p);
    auto t = migx_test::text(migx_test::expect_gpu_matches_ref(p, migx_test::fresh_params(p), 2e-2, 2e-3));
    EXPECT_NE(t.find("layers=2"), std::string::npos) << t;
}

TEST(gpu_rnn, each_algorithm_matches_ref_on_device)
{
    // MIGRAPHX_GPU_RNN_ALGO forces one (the standard one where cuDNN refuses it for the problem).
    MIGX_REQUIRE_GPU();
    auto lstm = sized(bidirectional(rnn_case{}), 12, 4, 16, 32);
    lstm.h0 = lstm.c0 = true;
    auto gru    = torch_gru();
    gru.hidden  = 32;
    gru.lens    = "short";
    for(std::string a : {"standard", "persist_static", "persist_static_small_h"})
    {
        migx_test::scoped_env algo{"MIGRAPHX_GPU_RNN_ALGO", a.c_str()};
        for(const auto& c : {lstm, gru})
        {
            auto t = check(c, 1e-3, 1e-4);
            bool taken = t.find("algo=" + a) != std::string::npos;
            EXPECT_TRUE(taken or t.find("algo=standard") != std::string::npos) << a << "\n" << t;
            if(not taken) // what cuDNN refuses, for the log
                std::cout << a << " refused for " << c.op << " (lens " << c.lens << "), standard instead\n";
        }
        auto p = make_rnn_program(lstm);
        migraphx::quantize_fp16(p);
        migx_test::expect_gpu_matches_ref(p, migx_test::fresh_params(p), 2e-2, 2e-3);
    }
}

TEST(gpu_rnn, the_algorithm_is_measured_once_and_a_bad_name_refused_on_device)
{
    // Unset MIGRAPHX_GPU_RNN_ALGO measures (as `measured`); a name forces that algorithm.
    MIGX_REQUIRE_GPU();
    rnn_case c;
    c.seq         = 16;
    auto compiled = [&] {
        auto p = make_rnn_program(c);
        p.compile(migraphx::get_target("gpu"));
        auto t  = migx_test::text(p);
        auto at = t.find("algo=");
        return at == std::string::npos ? std::string{} : t.substr(at, t.find_first_of(",]", at) - at);
    };
    {
        migx_test::scoped_env forced{"MIGRAPHX_GPU_RNN_ALGO", "standard"};
        EXPECT_EQ(compiled(), "algo=standard");
    }
    migx_test::scoped_env unset{"MIGRAPHX_GPU_RNN_ALGO", nullptr};
    auto first = compiled();
    EXPECT_NE(first, "") << "no algo attribute";
    EXPECT_NE(first, "algo=");
    EXPECT_EQ(compiled(), first); // this process's choice, not measured again
    {
        migx_test::scoped_env measured{"MIGRAPHX_GPU_RNN_ALGO", "measured"};
        EXPECT_EQ(compiled(), first);
    }
    migx_test::scoped_env bad{"MIGRAPHX_GPU_RNN_ALGO", "fastest"};
    try
    {
        compiled();
        ADD_FAILURE() << "an unknown algorithm name was taken";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("MIGRAPHX_GPU_RNN_ALGO"), std::string::npos) << e.what();
    }
}

#endif
