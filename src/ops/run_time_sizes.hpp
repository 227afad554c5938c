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
#include <cstddef>
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

/// ONNX Reshape's reading of the sizes `want` for an input of lens `in` (0 copies in's dim unless
/// allowzero, one -1 is inferred; `declared`: the op's declared result, whose length a -1 of an
/// empty tensor takes). Throws naming op where they do not fit. Shared by reshape_with_dims and
/// the gpu target's device form of it.
inline std::vector<std::size_t> resolve_reshape_sizes(const std::string& op,
                                                      const std::vector<std::int64_t>& want,
                                                      const std::vector<std::size_t>& in,
                                                      bool allowzero,
                                                      const std::vector<std::size_t>& declared)
{
    std::size_t n = 1;
    for(auto l : in)
        n *= l;
    std::vector<std::size_t> lens(want.size());
    std::size_t known    = 1;
    std::ptrdiff_t infer = -1;
    for(std::size_t i = 0; i < want.size(); i++)
    {
        if(want[i] == -1)
        {
            if(infer >= 0)
                MIGRAPHX_THROW(op + ": the shape holds more than one -1");
            infer = static_cast<std::ptrdiff_t>(i);
            continue;
        }
        if(want[i] < -1)
            MIGRAPHX_THROW(op + ": the shape holds a negative size " + std::to_string(want[i]));
        if(want[i] == 0 and not allowzero)
        {
            if(i >= in.size())
                MIGRAPHX_THROW(op + ": a 0 at index " + std::to_string(i) + " has no input dim to copy");
            lens[i] = in[i];
        }
        else
            lens[i] = static_cast<std::size_t>(want[i]);
        known *= lens[i];
    }
    if(infer >= 0 and known == 0 and n == 0)
        lens[infer] = declared.at(infer); // any length holds no elements: the declared one
    else if(infer >= 0)
    {
        if(known == 0 or n % known != 0)
            MIGRAPHX_THROW(op + ": cannot infer the -1 size: " + std::to_string(n) + " elements into " +
                           lens_string(lens));
        lens[infer] = n / known;
    }
    std::size_t m = 1;
    for(auto l : lens)
        m *= l;
    if(m != n)
        MIGRAPHX_THROW(op + ": cannot reshape " + lens_string(in) + " to " + lens_string(lens));
    return lens;
}

} // namespace migraphx

#endif
