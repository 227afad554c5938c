#ifndef MIGRAPHX_GPU_RNN_HPP
#define MIGRAPHX_GPU_RNN_HPP

// gpu::rnn: an lstm, gru or rnn op on cuDNN's recurrent kernels (cudnnRNNForward), the whole
// sequence in one call, in place of the recurrence unrolled into a product and a pointwise
// kernel a step.

#include <migraphx/argument.hpp>
#include <migraphx/context.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/shape.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace migraphx {
namespace gpu {

/// Inputs as the lstm / gru / rnn op's, in ONNX positions (X, W, R[, B, sequence_lens, initial_h
/// [, initial_c]]; an input with no elements is absent), then the output buffer: one flat buffer of
/// X's type holding, each part starting at a multiple of 64 elements (rnn_parts):
///   Y as cuDNN writes it, {seq, batch, dirs, hidden}; then Y_h {dirs, batch, hidden}; then (lstm)
///   Y_c (dirs: cudnn_dirs()). The lowering reads ONNX's Y {seq, dirs, batch, hidden} from it as a
///   transposed view (reverse: of the second direction).
/// What cuDNN computes as ONNX defines it: float or half (float math), no clip, any direction;
/// lstm: sigmoid/tanh/tanh, no peepholes, no
/// coupled input-forget gate; gru: linear_before_reset (PyTorch's GRU; ONNX's default form is unrolled); rnn: tanh or relu, the
/// same in both directions. sequence_lens: none, or a constant with every row in 1..seq (rows
/// that stop early are padded with zeros, as ONNX asks). The weights are copied into cuDNN's
/// weight space at the first run (and at every run unless constant_weights).
/// A stack (layers > 1: each layer's input the previous layer's Y, as PyTorch's num_layers exports
/// it; rnn_stack) is one call too: inputs X, then W, R and B of each layer, then the output buffer,
/// whose Y_h and Y_c hold every layer's {dirs, batch, hidden} in turn; no initial states.
struct rnn
{
    std::string cell = "lstm"; // lstm, gru, rnn_tanh, rnn_relu
    std::size_t hidden_size = 1;
    bool bidirectional      = false;
    /// ONNX's reverse direction, which cuDNN has not: a bidirectional call whose forward
    /// direction has zero weights, its backward half ONNX's outputs (twice the work, run
    /// side by side by cuDNN); its initial states are copied into the backward half of cuDNN's
    /// {2, batch, hidden} at each run, and a short row starts at its own last step, as ONNX's.
    bool reverse = false;
    std::vector<std::int32_t> seq_lens; // per row; empty: every row the whole sequence
    bool constant_weights = false;
    /// cuDNN's algorithm (standard, persist_static, persist_static_small_h): "" until finalize
    /// chooses one (MIGRAPHX_GPU_RNN_ALGO's where set, else the fastest, measured); a loaded
    /// program keeps the one it was saved with where cuDNN still runs it.
    std::string algo;
    std::size_t layers = 1;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.cell, "cell");
        f(self.hidden_size, "hidden_size");
        f(self.bidirectional, "bidirectional");
        f(self.seq_lens, "seq_lens");
        f(self.constant_weights, "constant_weights");
        f(self.algo, "algo");
        f(self.layers, "layers");
        f(self.reverse, "reverse");
    }
    /// The directions cuDNN runs (2 for reverse too); ONNX's are bidirectional ? 2 : 1.
    std::size_t cudnn_dirs() const { return bidirectional or reverse ? 2 : 1; }
    std::string name() const { return "gpu::rnn"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return static_cast<std::ptrdiff_t>(inputs.size()) - 1;
    }
    struct plan;
    std::shared_ptr<plan> cache;
};

/// Where Y, Y_h and Y_c start in gpu::rnn's buffer (in elements) and its size.
struct rnn_parts
{
    std::size_t y = 0, h = 0, c = 0, total = 0;
};
rnn_parts rnn_layout(std::size_t seq, std::size_t batch, std::size_t dirs, std::size_t hidden, bool lstm,
                     std::size_t layers = 1);

/// gpu::rnn for ins (an lstm, gru or rnn instruction) where cuDNN computes what it asks (above),
/// its tuple used only through get_tuple_elem; else nothing (and with MIGRAPHX_GPU_CUDNN_RNN=0:
/// the recurrences are unrolled instead).
std::optional<rnn> cudnn_rnn_for(instruction_ref ins);

/// ins (taken by cudnn_rnn_for as op) and the layers after it that cuDNN runs with it as one
/// stack: each the next one's X through its Y's reshape (and a bidirectional Y's transpose to
/// {seq, batch, dirs * hidden}) alone, the same cell, size, direction and lengths, biases
/// present, initial states absent or constant zeros, weights defined before ins (`before`).
/// Just {ins} where there is no next layer, ins is reverse, or MIGRAPHX_GPU_RNN_STACK=0.
std::vector<instruction_ref> rnn_stack(instruction_ref ins,
                                       const rnn& op,
                                       const std::function<const rnn*(instruction_ref)>& taken,
                                       const std::function<bool(instruction_ref, instruction_ref)>& before);

/// Forgets the algorithms gpu::rnn chose in this process (as forget_tuning_choices, for tests).
void forget_rnn_choices();

} // namespace gpu
} // namespace migraphx

#endif
