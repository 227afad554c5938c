#ifndef MIGRAPHX_OPS_RUN_TIME_SIZES_HPP
#define MIGRAPHX_OPS_RUN_TIME_SIZES_HPP

// Sizes an op reads from an input at run time (broadcast_with_dims, reshape_with_dims, topk's k):
// the ONNX parser's Expand / ConstantOfShape / Reshape / TopK whose size is computed from the shape
// of a data-dependent result. The instruction's static shape is the largest (the sizes computed
// from the declared shapes); the result has the sizes the input holds, never larger.

#include <migraphx/argument.hpp>
#include <migraphx/errors.hpp>
#include "ops/broadcast_lens.hpp"
#include "ops/check_shapes.hpp"
#include <cstdint>
#include <string>
#include <vector>

namespace migraphx {

inline bool is_integral_type(shape::type_t t) { return t != shape::bool_type and shape::is_integral(t); }

/// compute_shape's check of a sizes input: an integer tensor of rank <= 1 with n elements
/// (any count where n is 0).
inline void check_sizes_input(const check_shapes& cs, const shape& s, std::size_t n, const std::string& what)
{
    if(s.type() == shape::tuple_type or s.dynamic() or not is_integral_type(s.type()) or s.ndim() > 1 or
       (n != 0 and s.elements() != n))
        cs.fail(what + " must be an integer tensor of " + (n == 0 ? std::string("rank 0 or 1") : std::to_string(n) + " element(s)"));
}

/// The values of a sizes input.
inline std::vector<std::int64_t> read_sizes(const argument& a) { return a.to_vector<std::int64_t>(); }

/// Throws unless every actual dim is within the declared (largest) one.
inline void check_within_declared(const std::string& op,
                                  const std::vector<std::size_t>& actual,
                                  const std::vector<std::size_t>& declared)
{
    bool fits = actual.size() == declared.size();
    for(std::size_t i = 0; fits and i < actual.size(); i++)
        fits = actual[i] <= declared[i];
    if(not fits)
        MIGRAPHX_THROW(op + ": the run-time sizes " + lens_string(actual) + " exceed the declared (largest) shape " +
                       lens_string(declared) + " computed from the inputs' static shapes");
}

} // namespace migraphx

#endif
