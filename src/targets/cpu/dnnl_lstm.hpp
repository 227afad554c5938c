#ifndef MIGRAPHX_CPU_DNNL_LSTM_HPP
#define MIGRAPHX_CPU_DNNL_LSTM_HPP

// cpu::lstm: the lstm op on oneDNN's lstm_forward, one primitive for the whole sequence (the
// unrolled recurrence ran ~6 ops a step: 2.7-4x ONNX Runtime's time on a 2-layer, 32-step LSTM).

#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/instruction.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace migraphx {
namespace cpu {

/// Inputs as the lstm op's (X, W, R, [B, sequence_lens, initial_h, initial_c, P]; X, initial_h
/// and initial_c standard); result the tuple {Y, Y_h, Y_c}. Takes only what oneDNN computes:
/// float, activations sigmoid/tanh/tanh, no clip, no coupled input-forget gate, every row the whole
/// sequence (sequence_lens, if given, is not read). ONNX's gates are i o f c, oneDNN's i f c o:
/// W, R, B and P are rearranged and packed into the primitive's format, once where
/// constant_weights (all four constants), else at every run.
struct dnnl_lstm
{
    std::size_t hidden_size = 1;
    std::string direction   = "forward";
    bool constant_weights   = false;

    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.hidden_size, "hidden_size");
        f(self.direction, "direction");
        f(self.constant_weights, "constant_weights");
    }
    std::string name() const { return "dnnl::lstm"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    /// oneDNN's implementation name for these inputs.
    std::string impl(context& ctx, const std::vector<shape>& inputs) const;

    /// One direction's primitive: a bidirectional LSTM runs as two, at once on two threads.
    struct part
    {
        dnnl::lstm_forward::primitive_desc pd;
        dnnl::lstm_forward prim;
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
    dnnl::lstm_forward::primitive_desc make_pd(const dnnl_context& c, const std::vector<shape>& inputs, std::size_t d) const;
    std::vector<packed_weights> pack(const dnnl_context& c, const prim_cache& pc, const std::vector<argument>& args) const;
};

/// The lstm instruction as a cpu::lstm, where oneDNN computes what it asks (see dnnl_lstm), or
/// nothing.
std::optional<dnnl_lstm> plain_dnnl_lstm(instruction_ref ins);

} // namespace cpu
} // namespace migraphx

#endif
