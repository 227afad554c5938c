#ifndef MIGRAPHX_GPU_HALF_ACCURACY_HPP
#define MIGRAPHX_GPU_HALF_ACCURACY_HPP

// How closely a half result comes to the exact one, as the convolution and gemm searches measure
// their candidates. A search fills its scratch inputs with patterns the host knows
// (fill_pattern), so the exact result at sampled outputs can be computed in double precision
// (conv_reference.hpp, gemm_reference.hpp). A half result can do no better than rounding that
// exact value once; a candidate whose error is several times that (Winograd or FFT arithmetic on
// half intermediates, rounding twice, partial sums added in half) is refused, even where its
// result is close enough to pass a coarse comparison with another candidate's.

#include <cuda_runtime_api.h> // cudaStream_t (not cuda_fp16.h, whose half would clash with migraphx::half)
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

/// A problem's exact results at sampled elements of its output y.
struct exact_samples
{
    std::vector<std::size_t> offsets; // element offsets into y, each below the limit asked for
    std::vector<double> exact;        // y's exact value there (double arithmetic)
    /// The root mean square of (exact - exact rounded to half) over the samples: the error of
    /// a result that is rounded once, the best a half result can be.
    double rounding_rms = 0;
};

/// Sets ref.rounding_rms from ref.exact: the RMS of single rounding to half (0 where the result
/// is not half).
void set_rounding(exact_samples& ref, bool half_result);

/// Copies n halves of the pattern (repeated) to device memory p on stream s, and waits.
void upload_pattern(cudaStream_t s, void* p, std::size_t n, const fill_pattern& pattern);

/// The first n halves at device memory p, read on stream s.
std::vector<std::uint16_t> download_halves(cudaStream_t s, const void* p, std::size_t n);

/// How far a result (y's first elements as halves, at least up to the reference's offsets) is
/// from the reference.
struct half_accuracy
{
    double rms_error = 0;
    double max_error = 0;
    /// rms_error / the reference's rounding_rms: 1 for a result rounded once from the exact
    /// value (about 1 for float accumulation), infinite for a NaN or infinity.
    double ratio = 0;
    std::string str() const;
    /// A candidate that did not run: infinitely far.
    static half_accuracy failed();
};

half_accuracy measure_accuracy(const exact_samples& ref, const std::uint16_t* y);

/// The largest ratio the searches accept: MIGRAPHX_GPU_ACCURACY_LIMIT (default 2; 0 turns the
/// checks off).
double accuracy_limit_from_env();

/// Whether a result of accuracy a passes limit (a limit of 0 passes everything).
bool accurate_enough(const half_accuracy& a, double limit);

/// Which of `count` candidates, offered best first, a search keeps: the first whose accuracy
/// (measure(i); nullopt where it is not checked) is within limit; where every one is over it,
/// the most accurate (the first of equals). measure is called in order, and only up to the one
/// kept. nullopt for no candidates.
std::optional<std::size_t> first_accurate(std::size_t count,
                                          const std::function<std::optional<half_accuracy>(std::size_t)>& measure,
                                          double limit);

/// The words a search's keys (in memory and in the tuning cache) gain for the check, so that a
/// choice made under another limit, or before the check existed, is not taken: ", accuracy
/// limit 2.00"; "" for 0.
std::string accuracy_key_words(double limit);

} // namespace dnn
} // namespace gpu
} // namespace migraphx

#endif
