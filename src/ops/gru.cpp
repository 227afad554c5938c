// gru[hidden_size=1,actv_funcs={},direction=forward,clip=0,linear_before_reset=0]: ONNX GRU as
// one op, gates in ONNX order z, r, h; default activations f = sigmoid, g = tanh per direction.
//   z = f(Wz x + Rz H + Wbz + Rbz), r = f(Wr x + Rr H + Wbr + Rbr)
//   h~ = g(Wh x + Rh (r . H) + Rbh + Wbh)          (linear_before_reset = 0)
//   h~ = g(Wh x + r . (Rh H + Rbh) + Wbh)          (linear_before_reset != 0)
//   H' = (1 - z) . h~ + z . H
// Inputs and the output tuple {Y, Y_h}: ops/rnn_common.hpp, docs/internal/op-conventions.md.
#include <migraphx/register_op.hpp>
#include "ops/rnn_common.hpp"

namespace migraphx {
namespace op {

struct gru
{
    std::size_t hidden_size = 1;
    std::vector<std::string> actv_funcs;
    std::string direction           = "forward";
    float clip                      = 0.0f;
    std::int64_t linear_before_reset = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.hidden_size, "hidden_size");
        f(self.actv_funcs, "actv_funcs");
        f(self.direction, "direction");
        f(self.clip, "clip");
        f(self.linear_before_reset, "linear_before_reset");
    }
    std::string name() const { return "gru"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        auto dirs = rnn_detail::direction_count(direction, name());
        rnn_detail::activations(actv_funcs, {"sigmoid", "tanh"}, dirs, name());
        return rnn_detail::rnn_shape(inputs, hidden_size, 3, false, direction, name());
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto dirs = rnn_detail::direction_count(direction, name());
        auto act  = rnn_detail::activations(actv_funcs, {"sigmoid", "tanh"}, dirs, name());
        rnn_detail::rnn_data data{args, hidden_size, 3, dirs, name()};
        const std::size_t H = hidden_size;
        std::vector<double> xw, hr, rh(H), hr2;
        auto step = [&](std::size_t d, const double* xt, std::vector<double>& h, std::vector<double>&) {
            const auto& f = act[2 * d];
            const auto& g = act[2 * d + 1];
            data.project(d, xt, h.data(), xw, hr);
            std::vector<double> z(H), r(H);
            for(std::size_t j = 0; j < H; j++)
            {
                z[j] = f(rnn_detail::clip_to(xw[j] + hr[j], clip));
                r[j] = f(rnn_detail::clip_to(xw[H + j] + hr[H + j], clip));
            }
            if(linear_before_reset == 0)
            {
                // Rh (r . H) + Rbh: project again with the reset hidden state.
                for(std::size_t j = 0; j < H; j++)
                    rh[j] = r[j] * h[j];
                std::vector<double> unused;
                data.project(d, xt, rh.data(), unused, hr2);
            }
            for(std::size_t j = 0; j < H; j++)
            {
                double pre = linear_before_reset == 0 ? xw[2 * H + j] + hr2[2 * H + j]
                                                      : xw[2 * H + j] + r[j] * hr[2 * H + j];
                double ht  = g(rnn_detail::clip_to(pre, clip));
                h[j]       = (1.0 - z[j]) * ht + z[j] * h[j];
            }
        };
        return rnn_detail::run_rnn(out, data, direction, step);
    }
};
MIGRAPHX_REGISTER_OP(gru)

} // namespace op
} // namespace migraphx
