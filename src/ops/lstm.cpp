// lstm[hidden_size=1,actv_funcs={},direction=forward,clip=0,input_forget=0]: ONNX LSTM as one op,
// gates in ONNX order i, o, f, c; peepholes P = [Pi, Po, Pf]; default activations f = sigmoid,
// g = tanh, h = tanh per direction.
//   i = f(Wi x + Ri H + Pi . C + Wbi + Rbi), f = f(Wf x + Rf H + Pf . C + Wbf + Rbf)
//   c~ = g(Wc x + Rc H + Wbc + Rbc), C' = f . C + i . c~
//   o = f(Wo x + Ro H + Po . C' + Wbo + Rbo), H' = o . h(C')
// input_forget != 0 couples the gates: f = 1 - i. clip applies to the gate pre-activations.
// Inputs and the output tuple {Y, Y_h, Y_c}: ops/rnn_common.hpp, docs/internal/op-conventions.md.
#include <migraphx/register_op.hpp>
#include "ops/rnn_common.hpp"

namespace migraphx {
namespace op {

struct lstm
{
    std::size_t hidden_size = 1;
    std::vector<std::string> actv_funcs;
    std::string direction    = "forward";
    float clip               = 0.0f;
    std::int64_t input_forget = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.hidden_size, "hidden_size");
        f(self.actv_funcs, "actv_funcs");
        f(self.direction, "direction");
        f(self.clip, "clip");
        f(self.input_forget, "input_forget");
    }
    std::string name() const { return "lstm"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        auto dirs = rnn_detail::direction_count(direction, name());
        rnn_detail::activations(actv_funcs, {"sigmoid", "tanh", "tanh"}, dirs, name());
        return rnn_detail::rnn_shape(inputs, hidden_size, 4, true, direction, name());
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto dirs = rnn_detail::direction_count(direction, name());
        auto act  = rnn_detail::activations(actv_funcs, {"sigmoid", "tanh", "tanh"}, dirs, name());
        rnn_detail::rnn_data data{args, hidden_size, 4, dirs, name()};
        const std::size_t H = hidden_size;
        std::vector<double> xw, hr;
        auto step = [&](std::size_t d, const double* xt, std::vector<double>& h, std::vector<double>& c) {
            const auto& f  = act[3 * d];
            const auto& g  = act[3 * d + 1];
            const auto& hf = act[3 * d + 2];
            const double* p = data.p.data() + d * 3 * H;
            data.project(d, xt, h.data(), xw, hr);
            for(std::size_t j = 0; j < H; j++)
            {
                auto pre     = [&](std::size_t gate) { return xw[gate * H + j] + hr[gate * H + j]; };
                double ig    = f(rnn_detail::clip_to(pre(0) + p[j] * c[j], clip));
                double fg    = input_forget != 0 ? 1.0 - ig : f(rnn_detail::clip_to(pre(2) + p[2 * H + j] * c[j], clip));
                double cand  = g(rnn_detail::clip_to(pre(3), clip));
                c[j]         = fg * c[j] + ig * cand;
                double og    = f(rnn_detail::clip_to(pre(1) + p[H + j] * c[j], clip));
                h[j]         = og * hf(c[j]);
            }
        };
        return rnn_detail::run_rnn(out, data, direction, step);
    }
};
MIGRAPHX_REGISTER_OP(lstm)

} // namespace op
} // namespace migraphx
