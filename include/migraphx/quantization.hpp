#ifndef MIGRAPHX_QUANTIZATION_HPP
#define MIGRAPHX_QUANTIZATION_HPP

#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <string>
#include <vector>

namespace migraphx {

/// Rewrites the (uncompiled) program to compute in half precision: float inputs of the named
/// operations ("all": every operation) are converted to half, results converted back to float
/// only where a float value leaves the half region (outputs, unconverted ops). Parameters and
/// outputs keep their declared types.
void quantize_fp16(program& prog, const std::vector<std::string>& ins_names = {"all"});

/// Rewrites the named operations (convolution, dot) of the (uncompiled) program to int8 with int32
/// accumulation: quantizelinear -> quant_convolution / quant_dot -> dequantizelinear, symmetric
/// scales. Activation ranges (per-tensor abs-max) come from running each calibration parameter
/// map through the program compiled for t; constant weights get per-output-channel scales from
/// their values. With no calibration data, warns on stderr and uses the default range
/// [-127, 127] (scale 1). Throws migraphx::exception for a calibration map that misses an input
/// or gives one of the wrong shape.
void quantize_int8(program& prog,
                   const target& t,
                   const std::vector<parameter_map>& calibration,
                   const std::vector<std::string>& ins_names = {"dot", "convolution"});

} // namespace migraphx

#endif
