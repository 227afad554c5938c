#ifndef MIGRAPHX_QUANTIZE_CALIBRATE_HPP
#define MIGRAPHX_QUANTIZE_CALIBRATE_HPP

#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <vector>

namespace migraphx {

/// Throws migraphx::exception unless every map gives every input of prog, with its shape, and
/// nothing else.
void check_calibration(const program& prog, const std::vector<parameter_map>& calibration);

/// The largest |value| each of `watched` (instructions of prog's main module) takes over runs of
/// prog on t with each calibration map. prog is left as it was: the capture ops that record the
/// ranges live only in a compiled copy.
std::vector<float> calibrate_abs_max(program& prog,
                                     const target& t,
                                     const std::vector<parameter_map>& calibration,
                                     const std::vector<instruction_ref>& watched);

} // namespace migraphx

#endif
