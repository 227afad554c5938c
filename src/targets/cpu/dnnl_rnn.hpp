#ifndef MIGRAPHX_CPU_DNNL_RNN_HPP
#define MIGRAPHX_CPU_DNNL_RNN_HPP

// cpu::rnn: the lstm, gru and rnn ops on oneDNN's recurrent primitives, one primitive for the
// whole sequence (the unrolled recurrence ran ~6 ops a step: 1.7-1.9x ONNX Runtime's time on the
// zoo's LSTM models, 2.7-4x in session 25).

#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/instruction.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// Inputs as the lstm / gru / rnn op's (X, W, R, [B, sequence_lens, initial_h, [initial_c, P]];
/// X and the initial states standard); result the same tuple {Y, Y_h[, Y_c]}. Takes only what
/// oneDNN computes: float, no clip, every row the whole sequence (sequence_lens, if given, is not
/// read); lstm: activations sigmoid/tanh/tanh, no coupled input-forget gate; gru: sigmoid/tanh
/// (cell "gru", or "lbr_gru" for linear_before_reset); rnn: tanh, relu or sigmoid (activations,
/// one per direction). ONNX's LSTM gates are i o f c, oneDNN's i f c o: W, R, B and P are
/// rearranged and packed into the primitive's formats, once where constant_weights (all of them
/// constants), else at every run.
struct dnnl_rnn
{
    std::string cell = "lstm"; // lstm, gru, lbr_gru, rnn
    std::size_t hidden_size = 1;
    std::string direction   = "forward";
    std::vector<std::string> activations; // rnn: per direction
    bool constant_weights = false;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.cell, "cell");
        f(self.hidden_size, "hidden_size");
        f(self.direction, "direction");
        f(self.activations, "activations");
        f(self.constant_weights, "constant_weights");
    }
    std::string name() const { return "dnnl::rnn"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    /// oneDNN's implementation name for these inputs.
    std::string impl(context& ctx, const std::vector<shape>& inputs) const;

    /// One direction's primitive: a bidirectional op runs as two, at once on two threads.
    struct part
    {
        dnnl::rnn_primitive_desc_base pd;
        dnnl::primitive prim;
    };
    /// One direction's W, R, bias and peepholes in its primitive's formats.
    struct packed_weights
    {
        argument layer, iter, bias, peephole;
    };
    struct prim_cache
    {
        std::vector<shape> inputs; // what it was built for
        std::vector<part> parts;   // by direction
        std::mutex m;
        const void* packed_from = nullptr; // the constant W the packed weights came from
        std::vector<packed_weights> packed;
    };
    std::shared_ptr<prim_cache> cache;
    std::shared_ptr<prim_cache> make_cache(context& ctx, const std::vector<shape>& inputs) const;
    std::shared_ptr<shape_keyed_cache<prim_cache>> sized = std::make_shared<shape_keyed_cache<prim_cache>>();

    private:
    std::size_t gates() const;
    part make_part(const dnnl_context& c, const std::vector<shape>& inputs, std::size_t d) const;
    std::vector<packed_weights> pack(const dnnl_context& c, const prim_cache& pc, const std::vector<argument>& args) const;
};

/// The lstm, gru or rnn instruction as a cpu::rnn, where oneDNN computes what it asks (see
/// dnnl_rnn), or nothing. MIGRAPHX_DISABLE_DNNL_RNN=1: always nothing.
std::optional<dnnl_rnn> plain_dnnl_rnn(instruction_ref ins);

} // namespace cpu
} // namespace migraphx

#endif
