#ifndef MIGRAPHX_DRIVER_VERIFY_HPP
#define MIGRAPHX_DRIVER_VERIFY_HPP

#include "driver/options.hpp"

namespace migraphx {
namespace driver {

struct verify_options
{
    double rtol = -1; // < 0: the default for the precision (1e-3; 1e-2 with --fp16; 1e-1 with --int8)
    double atol = -1;
    double rms_tol = -1; // >= 0: pass on MIGraphX's measure (rms of the difference over the largest magnitude) instead
    bool per_instruction = false;
};

/// Compiles the model for the chosen target and for ref, runs both on the same inputs and
/// compares every output: an element passes when |x - ref| <= atol + rtol * |ref|.
/// With per_instruction, also compiles a copy of the model in which every instruction of the
/// main module is an output, and reports the first instruction whose result departs from ref.
/// Returns the exit status: 0 when everything passed, 1 otherwise.
int verify_model(const model_options& mo, const target_options& to, const param_options& po, verify_options vo);

} // namespace driver
} // namespace migraphx

#endif
