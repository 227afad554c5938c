#ifndef MIGRAPHX_QUANTIZATION_HPP
#define MIGRAPHX_QUANTIZATION_HPP

#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <cstddef>
#include <string>
#include <vector>

namespace migraphx {

/// Rewrites the (uncompiled) program to compute in half precision: float inputs of the named
/// operations ("all": every operation) are converted to half, results converted back to float
/// only where a float value leaves the half region (outputs, unconverted ops). Parameters and
/// outputs keep their declared types.
void quantize_fp16(program& prog, const std::vector<std::string>& ins_names = {"all"});

/// What quantize_int8 did (filled when quantize_int8_options::report is set).
struct quantize_int8_report
{
    std::size_t quantized = 0;     ///< operations rewritten to int8
    std::size_t kept_float = 0;    ///< selected operations left in float by the accuracy check
    std::size_t unsigned_inputs = 0; ///< activations quantized to uint8 (non-negative by construction)
    double check_cosine = -1;      ///< smallest cosine vs float on the check maps (-1: not checked)
    std::size_t checks = 0;        ///< quantized programs compiled and run by the accuracy check
};

/// Options of quantize_int8; the defaults are what quantize_int8(prog, t, calibration) uses.
struct quantize_int8_options
{
    /// Operations to quantize: "convolution" and/or "dot".
    std::vector<std::string> ins_names = {"dot", "convolution"};
    /// How an activation's clipping range comes from calibration: "max" (largest |x| seen),
    /// "mse" (the range with the least expected squared quantization error over a histogram
    /// of what was seen) or "percentile:P" (e.g. "percentile:99.99").
    std::string calibration_method = "mse";
    /// Quantize activations that are non-negative by construction (after relu, relu6, softmax,
    /// max/average pooling of such) to uint8 [0, 255] instead of int8 [0, 127]: one more bit.
    bool unsigned_activations = true;
    /// Remove the mean output shift that weight rounding causes (from the calibrated per-channel
    /// means of each input) through the dequantize zero point.
    bool bias_correction = true;
    /// Accuracy check: after quantizing, the first `check_maps` calibration maps run through
    /// the float and the quantized programs (compiled for the target); while the smallest
    /// cosine similarity of their outputs is below min_cosine, the selected operations nearest
    /// the inputs (in program order; errors there are amplified by every later layer) stay in
    /// float, at most max_float_fraction of them, the fewest that pass found by bisection.
    /// min_cosine <= 0 turns the check off.
    double min_cosine         = 0.995;
    std::size_t check_maps    = 4;
    double max_float_fraction = 0.5;
    /// Residual streams in int8 (TensorRT's int8 ResNet): a 4-d `add` that reads a value which
    /// is also quantized for an int8 op reads that int8 value dequantized instead, so the value
    /// is stored once, in int8, and the gpu folds the add into the int8 convolution before it
    /// (gpu::fuse_int8). Costs accuracy (the residual is rounded to the next op's int8 scale);
    /// the accuracy check sees it. Experimental: not yet measured on a device.
    bool int8_residuals = false;
    /// Where to write what was done (may be null).
    quantize_int8_report* report = nullptr;
};

/// Rewrites the named operations (convolution, dot) of the (uncompiled) program to int8 with int32
/// accumulation: quantizelinear -> quant_convolution / quant_dot -> dequantizelinear, symmetric
/// scales. Activation ranges (per tensor) come from running each calibration parameter map
/// through the program compiled for t; constant weights get per-output-channel scales from
/// their values. With no calibration data, warns on stderr and uses the default range
/// [-127, 127] (scale 1). Throws migraphx::exception for a calibration map that misses an input
/// or gives one of the wrong shape or type (the message names the input).
void quantize_int8(program& prog,
                   const target& t,
                   const std::vector<parameter_map>& calibration,
                   const std::vector<std::string>& ins_names = {"dot", "convolution"});

/// The same with every option spelled out (see quantize_int8_options).
void quantize_int8(program& prog,
                   const target& t,
                   const std::vector<parameter_map>& calibration,
                   const quantize_int8_options& options);

/// What quantize_fp8 did (filled when quantize_fp8_options::report is set).
struct quantize_fp8_report
{
    std::size_t quantized = 0; ///< products whose operands were rewritten to read through fp8
};

/// Options of quantize_fp8; the defaults are what quantize_fp8(prog, t, calibration) uses.
struct quantize_fp8_options
{
    /// Operations to quantize: "dot" and/or "convolution" (those by constant weights).
    std::vector<std::string> ins_names = {"dot", "convolution"};
    /// An activation's range: "max" (largest |x| seen) or "percentile:P" of |x|.
    std::string calibration_method = "max";
    /// Where to write what was done (may be null).
    quantize_fp8_report* report = nullptr;
};

/// Rewrites the named operations (dot, convolution) of the (uncompiled) program whose second
/// operand is constant to read both operands in fp8 e4m3 (OCP "FN", shape::fp8e4m3fn_type):
/// quantizelinear -> dequantizelinear pairs with one scale per tensor (range / 448), the weights
/// stored as fp8 literals. The products themselves keep their float or half type and accumulate
/// in it (apply quantize_fp16 first for half). Activation ranges come from running each
/// calibration map through the program compiled for t; with no calibration data, warns on
/// stderr and uses scale 1. Products of two activations (attention's) are left alone. Throws
/// migraphx::exception for a calibration map that misses an input or gives one of the wrong
/// shape or type. An opt-in: e4m3's 3 mantissa bits cost accuracy that half's 10 do not.
void quantize_fp8(program& prog,
                  const target& t,
                  const std::vector<parameter_map>& calibration,
                  const std::vector<std::string>& ins_names = {"dot", "convolution"});

/// The same with every option spelled out (see quantize_fp8_options).
void quantize_fp8(program& prog,
                  const target& t,
                  const std::vector<parameter_map>& calibration,
                  const quantize_fp8_options& options);

} // namespace migraphx

#endif
