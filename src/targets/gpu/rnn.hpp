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
///   Y_c. The lowering reads ONNX's Y {seq, dirs, batch, hidden} from it as a transposed view.
/// What cuDNN computes as ONNX defines it: float or half (float math), no clip, forward or
/// bidirectional; lstm: sigmoid/tanh/tanh, no peepholes, no coupled input-forget gate; gru:
/// linear_before_reset (PyTorch's GRU; ONNX's default form is unrolled); rnn: tanh or relu, the
/// same in both directions. sequence_lens: none, or a constant with every row in 1..seq (rows
/// that stop early are padded with zeros, as ONNX asks). The weights are copied into cuDNN's
/// weight space at the first run (and at every run unless constant_weights).
struct rnn
{
    std::string cell = "lstm"; // lstm, gru, rnn_tanh, rnn_relu
    std::size_t hidden_size = 1;
    bool bidirectional      = false;
    std::vector<std::int32_t> seq_lens; // per row; empty: every row the whole sequence
    bool constant_weights = false;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.cell, "cell");
        f(self.hidden_size, "hidden_size");
        f(self.bidirectional, "bidirectional");
        f(self.seq_lens, "seq_lens");
        f(self.constant_weights, "constant_weights");
    }
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
rnn_parts rnn_layout(std::size_t seq, std::size_t batch, std::size_t dirs, std::size_t hidden, bool lstm);

/// gpu::rnn for ins (an lstm, gru or rnn instruction) where cuDNN computes what it asks (above),
/// its tuple used only through get_tuple_elem; else nothing. Only with MIGRAPHX_GPU_CUDNN_RNN=1
/// for now: the op has not yet run on a device (its device tests are written, not yet run), so
/// by default the recurrences stay unrolled, as before.
std::optional<rnn> cudnn_rnn_for(instruction_ref ins);

} // namespace gpu
} // namespace migraphx

#endif
