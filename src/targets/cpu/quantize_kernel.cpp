// cpu::quantize: float -> int8/uint8 for the int8 convolutions (written channels-last) and
// matmuls (standard layout).
// round(x / scale) to nearest even through the float magic number (exact for |v| < 2^22, which
// the clamp guarantees), so the loop vectorises.
#include "targets/cpu/dnnl_quant_ops.hpp"
#include "targets/cpu/omp_region.hpp"
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <cstdint>

namespace migraphx {
namespace cpu {

shape cpu_quantize::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.size() != 1 or inputs[0].type() != shape::float_type)
        MIGRAPHX_THROW("cpu::quantize: expected one float input");
    if(out_type != shape::int8_type and out_type != shape::uint8_type)
        MIGRAPHX_THROW("cpu::quantize: output must be int8 or uint8");
    return channels_last ? migraphx::cpu::channels_last(out_type, inputs[0].lens()) : shape{out_type, inputs[0].lens()};
}

namespace {

template <class T>
void quantize_rows(const float* in, T* out, const shape& is, const shape& os, float inv, float lo, float hi)
{
    const auto& l  = is.lens();
    const auto& st = is.strides();
    const auto& ot = os.strides();
    // rank-4 walk (others are reshaped to it by padding with 1s in front)
    std::size_t d[4] = {1, 1, 1, 1}, si[4] = {0, 0, 0, 0}, so[4] = {0, 0, 0, 0};
    auto off = 4 - l.size();
    for(std::size_t i = 0; i < l.size(); i++)
    {
        d[off + i]  = l[i];
        si[off + i] = st[i];
        so[off + i] = ot[i];
    }
    const float magic = 12582912.0f; // 1.5 * 2^23
    // Memory-bound: a second thread gains little below a few MB, and each parallel region costs
    // a scheduler tick or two when another process holds a core (spinning OpenMP barriers).
    const bool threads = is.elements() >= (std::size_t{1} << 21);
    if(is.strides() == os.strides() and is.packed())
    {
        auto n = static_cast<std::ptrdiff_t>(is.elements());
        omp_region(threads, 0, [&] {
#pragma omp for schedule(static)
            for(std::ptrdiff_t i = 0; i < n; i++)
            {
                float v = std::min(hi, std::max(lo, in[i] * inv));
                out[i]  = static_cast<T>(static_cast<int>((v + magic) - magic));
            }
        });
        return;
    }
    omp_for(threads, static_cast<std::int64_t>(d[0] * d[1]), [&](std::int64_t ab) {
        std::size_t a = static_cast<std::size_t>(ab) / d[1], b = static_cast<std::size_t>(ab) % d[1];
        for(std::size_t c = 0; c < d[2]; c++)
        {
            const float* ip = in + a * si[0] + b * si[1] + c * si[2];
            T* op           = out + a * so[0] + b * so[1] + c * so[2];
            for(std::size_t e = 0; e < d[3]; e++)
            {
                float v = std::min(hi, std::max(lo, ip[e * si[3]] * inv));
                op[e * so[3]] = static_cast<T>(static_cast<int>((v + magic) - magic));
            }
        }
    });
}

} // namespace

argument cpu_quantize::compute(context&, const shape& out, const std::vector<argument>& args) const
{
    const auto& is = args[0].get_shape();
    if(is.lens().size() > 4)
        MIGRAPHX_THROW("cpu::quantize: rank above 4");
    argument result = uninitialized(out);
    const auto* in  = reinterpret_cast<const float*>(args[0].data());
    float inv       = 1.0f / scale;
    if(out_type == shape::int8_type)
        quantize_rows(in, reinterpret_cast<std::int8_t*>(result.data()), is, out, inv, lo, hi);
    else
        quantize_rows(in, reinterpret_cast<std::uint8_t*>(result.data()), is, out, inv, lo, hi);
    return result;
}

MIGRAPHX_REGISTER_OP(cpu_quantize)

} // namespace cpu
} // namespace migraphx
