// Random ops. All are deterministic: the same seed gives the same values on every run and
// platform (std::mt19937_64 seeded with the seed's double bit pattern; uniform doubles take
// its top 53 bits; normals use Box-Muller). ONNX's "no seed" is the parser's business (it can
// pass any seed it likes).
//
// multinomial[dtype=int32_type,sample_size=1,seed=0] has two forms:
//   multinomial(cdf, dist)  (MIGraphX's): cdf {batch, classes} is a running sum of unnormalised
//       probabilities, dist {batch, n} holds uniform samples in [0, 1); out {batch, n} is, per
//       sample, the first class c with cdf[c] > dist * cdf[last]. sample_size and seed unused.
//   multinomial(logits)     (ONNX Multinomial directly): logits {batch, classes}; draws
//       sample_size classes per batch row from softmax(logits) using seed; out {batch, sample_size}.
// random_uniform[dtype=float_type,high=1,low=0,seed=0,shape={}]: values in [low, high).
// random_normal[dtype=float_type,mean=0,scale=1,seed=0,shape={}]: normal(mean, scale).
//   With no input the output lens are `shape`; with one input (the *Like ONNX ops) they are that
//   input's lens (its data is not read). The output type is always dtype.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace migraphx {
namespace op {
namespace {

struct rng
{
    std::mt19937_64 gen;
    explicit rng(double seed)
    {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &seed, sizeof(bits));
        gen.seed(bits);
    }
    double uniform() { return static_cast<double>(gen() >> 11) * 0x1.0p-53; } // [0, 1)
    double normal()
    {
        const double pi = 3.14159265358979323846;
        double u1       = 1.0 - uniform(); // (0, 1]
        double u2       = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * pi * u2);
    }
};

void check_dtype(shape::type_t t, const std::string& op)
{
    if(t < shape::bool_type or t >= shape::tuple_type)
        MIGRAPHX_THROW(op + ": dtype " + std::to_string(static_cast<int>(t)) + " is not an element type");
}

template <class F>
argument fill(const shape& out, F draw)
{
    argument result{out};
    out.visit_type([&](auto as) {
        using T = typename decltype(as)::type;
        auto* o = reinterpret_cast<T*>(result.data());
        for(std::size_t i = 0; i < out.elements(); i++)
            o[i] = type_cast<T>(draw());
    });
    return result;
}

shape random_shape(const std::vector<shape>& inputs,
                   shape::type_t dtype,
                   const std::vector<std::size_t>& lens,
                   const std::string& op)
{
    check_shapes{inputs, op}.has_between(0, 1).not_tuple().static_only();
    check_dtype(dtype, op);
    return {dtype, inputs.empty() ? lens : inputs[0].lens()};
}

} // namespace

struct multinomial
{
    shape::type_t dtype     = shape::int32_type;
    std::size_t sample_size = 1;
    float seed              = 0.0f;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.dtype, "dtype");
        f(self.sample_size, "sample_size");
        f(self.seed, "seed");
    }
    std::string name() const { return "multinomial"; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has_between(1, 2).not_tuple().static_only().ndims(2);
        if(dtype != shape::int32_type and dtype != shape::int64_type)
            cs.fail("dtype must be int32_type or int64_type");
        if(inputs.size() == 2 and inputs[0].lens()[0] != inputs[1].lens()[0])
            cs.fail("cdf and dist must have the same batch size");
        if(inputs[0].lens()[1] == 0)
            cs.fail("there must be at least one class");
        std::size_t n = inputs.size() == 2 ? inputs[1].lens()[1] : sample_size;
        return {dtype, {inputs[0].lens()[0], n}};
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        std::size_t batch   = out.lens()[0];
        std::size_t n       = out.lens()[1];
        std::size_t classes = args[0].get_shape().lens()[1];
        auto in             = args[0].to_vector<double>();
        std::vector<double> cdf(in.size());
        std::vector<double> dist(batch * n);
        if(args.size() == 2)
        {
            cdf  = in;
            dist = args[1].to_vector<double>();
        }
        else
        {
            rng r{seed};
            for(std::size_t b = 0; b < batch; b++)
            {
                double mx = in[b * classes];
                for(std::size_t c = 1; c < classes; c++)
                    mx = std::max(mx, in[b * classes + c]);
                double acc = 0;
                for(std::size_t c = 0; c < classes; c++)
                    cdf[b * classes + c] = acc += std::exp(in[b * classes + c] - mx);
            }
            for(auto& d : dist)
                d = r.uniform();
        }
        std::vector<std::int64_t> picks(batch * n);
        for(std::size_t b = 0; b < batch; b++)
        {
            const double* row = cdf.data() + b * classes;
            for(std::size_t s = 0; s < n; s++)
            {
                double target = dist[b * n + s] * row[classes - 1];
                auto it       = std::upper_bound(row, row + classes, target);
                picks[b * n + s] = std::min<std::int64_t>(it - row, static_cast<std::int64_t>(classes) - 1);
            }
        }
        std::size_t i = 0;
        return fill(out, [&] { return picks[i++]; });
    }
};
MIGRAPHX_REGISTER_OP(multinomial)

struct random_uniform
{
    shape::type_t dtype = shape::float_type;
    float high          = 1.0f;
    float low           = 0.0f;
    float seed          = 0.0f;
    std::vector<std::size_t> shape_lens;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.dtype, "dtype");
        f(self.high, "high");
        f(self.low, "low");
        f(self.seed, "seed");
        f(self.shape_lens, "shape");
    }
    std::string name() const { return "random_uniform"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        return random_shape(inputs, dtype, shape_lens, name());
    }
    argument compute(const shape& out, const std::vector<argument>&) const
    {
        rng r{seed};
        return fill(out, [&] { return low + (static_cast<double>(high) - low) * r.uniform(); });
    }
};
MIGRAPHX_REGISTER_OP(random_uniform)

struct random_normal
{
    shape::type_t dtype = shape::float_type;
    float mean          = 0.0f;
    float scale         = 1.0f;
    float seed          = 0.0f;
    std::vector<std::size_t> shape_lens;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.dtype, "dtype");
        f(self.mean, "mean");
        f(self.scale, "scale");
        f(self.seed, "seed");
        f(self.shape_lens, "shape");
    }
    std::string name() const { return "random_normal"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        return random_shape(inputs, dtype, shape_lens, name());
    }
    argument compute(const shape& out, const std::vector<argument>&) const
    {
        rng r{seed};
        return fill(out, [&] { return mean + static_cast<double>(scale) * r.normal(); });
    }
};
MIGRAPHX_REGISTER_OP(random_normal)

} // namespace op
} // namespace migraphx
