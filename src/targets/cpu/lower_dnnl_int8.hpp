#ifndef MIGRAPHX_CPU_LOWER_DNNL_INT8_HPP
#define MIGRAPHX_CPU_LOWER_DNNL_INT8_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace cpu {

/// quantize_int8's pattern quantizelinear -> quant_convolution -> dequantizelinear [-> bias add]
/// [-> residual add] [-> relu/clip] becomes a oneDNN int8 convolution with the dequantize as output
/// scales; where its only user quantizes again for another int8 convolution, that requantize is
/// folded in too (uint8 output after relu). Remaining quantizelinears feeding these convolutions
/// become cpu::quantize.
struct lower_dnnl_int8
{
    std::string name() const { return "cpu::lower_dnnl_int8"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
