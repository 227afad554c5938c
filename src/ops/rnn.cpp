// rnn[hidden_size=1,actv_funcs={},direction=forward,clip=0]: ONNX RNN as one op,
//   H_t = f(W x_t + R H_{t-1} + Wb + Rb), default f = tanh (one per direction).
// Inputs (X, W, R[, B, sequence_lens, initial_h]) and the output tuple {Y, Y_h} are described
// in ops/rnn_common.hpp and docs/internal/op-conventions.md.
#include <migraphx/register_op.hpp>
#include "ops/rnn_common.hpp"

namespace migraphx {
namespace op {

struct rnn
{
    std::size_t hidden_size = 1;
    std::vector<std::string> actv_funcs;
    std::string direction = "forward";
    float clip            = 0.0f;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.hidden_size, "hidden_size");
        f(self.actv_funcs, "actv_funcs");
        f(self.direction, "direction");
        f(self.clip, "clip");
    }
    std::string name() const { return "rnn"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        auto dirs = rnn_detail::direction_count(direction, name());
        rnn_detail::activations(actv_funcs, {"tanh"}, dirs, name());
        return rnn_detail::rnn_shape(inputs, hidden_size, 1, false, direction, name());
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto dirs = rnn_detail::direction_count(direction, name());
        auto act  = rnn_detail::activations(actv_funcs, {"tanh"}, dirs, name());
        rnn_detail::rnn_data data{args, hidden_size, 1, dirs, name()};
        std::vector<double> xw, hr;
        auto step = [&](std::size_t d, const double* xt, std::vector<double>& h, std::vector<double>&) {
            data.project(d, xt, h.data(), xw, hr);
            for(std::size_t j = 0; j < hidden_size; j++)
                h[j] = act[d](rnn_detail::clip_to(xw[j] + hr[j], clip));
        };
        return rnn_detail::run_rnn(out, data, direction, step);
    }
};
MIGRAPHX_REGISTER_OP(rnn)

} // namespace op
} // namespace migraphx
