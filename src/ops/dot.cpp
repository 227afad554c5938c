#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include "ir/parallel_for.hpp"
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {
namespace op {

namespace {

/// {batch..., M, K} x {batch..., K, N} -> {batch..., M, N}; batch dims must already be equal
/// (the ONNX parser broadcasts them).
std::vector<std::size_t> dot_lens(const check_shapes& cs)
{
    cs.has(2).not_tuple().static_only().same_ndims().min_ndims(2);
    const auto& a  = cs.inputs[0].lens();
    const auto& b  = cs.inputs[1].lens();
    std::size_t nd = a.size();
    if(not std::equal(a.begin(), a.end() - 2, b.begin()))
        cs.fail("batch dimensions must be equal");
    if(a[nd - 1] != b[nd - 2])
        cs.fail("inner dimensions do not match (" + std::to_string(a[nd - 1]) + " vs " +
                std::to_string(b[nd - 2]) + ")");
    auto out   = a;
    out.back() = b.back();
    return out;
}

/// Reference matmul over all batches in double; returns the result in logical order.
std::vector<double> dot_reference(const argument& a, const argument& b)
{
    const auto& al = a.get_shape().lens();
    const auto& bl = b.get_shape().lens();
    std::size_t nd = al.size();
    std::size_t m = al[nd - 2], k = al[nd - 1], n = bl[nd - 1];
    // batch count from the dims (not elements / (m * k): m or k may be 0)
    std::size_t batches = 1;
    for(std::size_t i = 0; i + 2 < nd; i++)
        batches *= al[i];
    auto av             = a.to_vector<double>();
    auto bv             = b.to_vector<double>();
    std::vector<double> out(batches * m * n, 0.0);
    // Rows (of all batches) on all cores; a thread takes at least ~1M multiply-adds.
    parallel_for(batches * m, (std::size_t{1} << 20) / std::max<std::size_t>(1, k * n) + 1,
                 [&](std::size_t first, std::size_t last) {
                     for(std::size_t row = first; row < last; row++)
                     {
                         std::size_t bi = row / m, i = row % m;
                         const double* pa = av.data() + bi * m * k;
                         const double* pb = bv.data() + bi * k * n;
                         double* po       = out.data() + bi * m * n;
                         // i-l-j order: rows of b are read contiguously; each sum still runs over l in order.
                         for(std::size_t l = 0; l < k; l++)
                         {
                             double x = pa[i * k + l];
                             for(std::size_t j = 0; j < n; j++)
                                 po[i * n + j] += x * pb[l * n + j];
                         }
                     }
                 });
    return out;
}

argument write_result(const shape& s, const std::vector<double>& values)
{
    argument result{s};
    result.visit([&](auto v) {
        using T = typename decltype(v)::value_type;
        for(std::size_t i = 0; i < values.size(); i++)
            v[i] = type_cast<T>(values[i]);
    });
    return result;
}

} // namespace

/// Matrix product over the last two dimensions (batched over the leading ones).
struct dot
{
    std::string name() const { return "dot"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        auto lens = dot_lens(cs.same_type());
        auto t    = inputs[0].type();
        if(t == shape::bool_type or t == shape::int8_type)
            cs.fail("type " + inputs[0].type_string() + " is not supported; int8 data uses quant_dot");
        return {t, lens};
    }
    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        return write_result(output_shape, dot_reference(args[0], args[1]));
    }
};
MIGRAPHX_REGISTER_OP(dot)

/// int8/uint8 x int8/uint8 -> int32 matrix product.
struct quant_dot
{
    std::string name() const { return "quant_dot"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        auto lens = dot_lens(cs);
        for(std::size_t i = 0; i < 2; i++)
            cs.type_in(i, {shape::int8_type, shape::uint8_type});
        return {shape::int32_type, lens};
    }
    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        return write_result(output_shape, dot_reference(args[0], args[1]));
    }
};
MIGRAPHX_REGISTER_OP(quant_dot)

/// fp8e4m3fn x fp8e4m3fn -> out_type (half or float): alpha * (a . b). The gpu target makes it
/// of dot(dequantizelinear(a, sa), dequantizelinear(b, sb)) with one scale per tensor
/// (quantize_fp8's form; alpha = sa * sb, gpu::fuse_fp8) and runs it as one cuBLASLt fp8
/// product, which sums in float; here the sums are in double, as dot's.
struct fp8_dot
{
    float alpha            = 1;
    shape::type_t out_type = shape::half_type;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.alpha, "alpha");
        f(self.out_type, "out_type");
    }
    std::string name() const { return "fp8_dot"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        auto lens = dot_lens(cs);
        for(std::size_t i = 0; i < 2; i++)
            cs.type_in(i, {shape::fp8e4m3fn_type});
        if(out_type != shape::half_type and out_type != shape::float_type)
            cs.fail("out_type must be half_type or float_type");
        return {out_type, lens};
    }
    argument compute(const shape& output_shape, const std::vector<argument>& args) const
    {
        auto values = dot_reference(args[0], args[1]);
        for(auto& v : values)
            v *= alpha;
        return write_result(output_shape, values);
    }
};
MIGRAPHX_REGISTER_OP(fp8_dot)

} // namespace op
} // namespace migraphx
