#ifndef MIGRAPHX_GPU_CONV_REFERENCE_HPP
#define MIGRAPHX_GPU_CONV_REFERENCE_HPP

// How closely a half convolution engine's result comes to the exact one (no cuDNN, no device).
// The convolution search fills its scratch buffers with known patterns (fill_pattern), so the
// exact result at sampled output elements can be computed on the host in double precision. A
// half result can do no better than rounding that exact value once; an engine whose error is
// several times that (Winograd or FFT arithmetic on half intermediates, double rounding) is
// refused by the search, even where its result is close enough to pass the coarse check
// against the legacy call (half_close).

#include "targets/gpu/cudnn_graph_spec.hpp"
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace migraphx {
namespace gpu {
namespace dnn {

/// The values a search buffer of n halves is filled with: a pseudo-random pattern in
/// [-scale, scale] (std::mt19937 seeded with seed) of min(n, 65521) values, repeated.
struct fill_pattern
{
    std::vector<std::uint16_t> halves; // one period, as written to the device
    std::vector<double> values;        // the same, as numbers
    static fill_pattern make(std::size_t n, float scale, unsigned seed);
    /// The value at element offset o of the filled buffer.
    double at(std::int64_t o) const { return values[static_cast<std::size_t>(o) % values.size()]; }
};

/// The exact results of a problem at sampled elements of y.
struct conv_reference
{
    std::vector<std::size_t> offsets; // element offsets into y, each below the limit asked for
    std::vector<double> exact;        // y's exact value there (double arithmetic)
    /// The root mean square of (exact - exact rounded to half) over the samples: the error of
    /// a result that is rounded once, the best a half result can be.
    double rounding_rms = 0;
};

/// The exact result of spec's problem (conv, + bias, + z, relu; half or float tensors; int8
/// graphs are not described: empty result) at up to `samples` elements of y whose offsets are
/// below `limit`, for inputs filled with x, w, bias and z (ignored where spec has none).
conv_reference make_conv_reference(const conv_graph_spec& spec,
                                   const fill_pattern& x,
                                   const fill_pattern& w,
                                   const fill_pattern& bias,
                                   const fill_pattern& z,
                                   std::size_t limit,
                                   std::size_t samples = 512);

/// How far a result (y's first elements as halves, at least up to the reference's offsets) is
/// from the reference.
struct conv_accuracy
{
    double rms_error = 0;
    double max_error = 0;
    /// rms_error / the reference's rounding_rms: 1 for a result rounded once from the exact
    /// value (about 1 for float accumulation), infinite for a NaN or infinity.
    double ratio = 0;
    std::string str() const;
};

conv_accuracy measure_accuracy(const conv_reference& ref, const std::uint16_t* y);

/// The largest ratio the search accepts: MIGRAPHX_CUDNN_ACCURACY_LIMIT (default 2; 0 turns the
/// check off).
double accuracy_limit_from_env();

/// Whether a result of accuracy a passes limit (a limit of 0 passes everything).
bool accurate_enough(const conv_accuracy& a, double limit);

/// Which of `count` candidates, offered best first, a search keeps: the first whose accuracy
/// (measure(i); nullopt where it is not checked) is within limit; where every one is over it,
/// the most accurate (the first of equals). measure is called in order, and only up to the one
/// kept. nullopt for no candidates.
std::optional<std::size_t> first_accurate(std::size_t count,
                                          const std::function<std::optional<conv_accuracy>(std::size_t)>& measure,
                                          double limit);

/// The words a search's keys (in memory and in the tuning cache) gain for the check, so that a
/// choice made under another limit, or before the check existed, is not taken: ", accuracy
/// limit 2.00"; "" for 0.
std::string accuracy_key_words(double limit);

} // namespace dnn
} // namespace gpu
} // namespace migraphx

#endif
