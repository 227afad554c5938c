#ifndef MIGRAPHX_QUANTIZE_CALIBRATE_HPP
#define MIGRAPHX_QUANTIZE_CALIBRATE_HPP

#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <chrono>
#include <string>
#include <vector>

namespace migraphx {

/// Throws migraphx::exception unless every map gives every input of prog, with its shape, and
/// nothing else.
void check_calibration(const program& prog, const std::vector<parameter_map>& calibration);

/// What calibration saw of one value: the largest |x| and, when asked for, a histogram of |x|
/// over [0, abs_max] (hist_bins equal bins; values beyond abs_max cannot occur).
struct value_range
{
    float abs_max = 0;
    std::vector<double> hist;
    std::vector<double> channel_mean; // mean per index along the requested axis (empty: none)
};

constexpr std::size_t hist_bins = 2048;

/// The ranges each of `watched` (instructions of prog's main module) takes over runs of prog on
/// t with each calibration map: abs_max from a first round of runs, then (histograms = true) a
/// second round fills the histograms. axes[i] >= 0 asks for the mean of watched[i] per index
/// along that axis. The program's own outputs for the first keep_outputs maps are written,
/// flattened, to *outputs (when not null). prog is left as it was: the capture ops that record
/// the ranges live only in a compiled copy.
std::vector<value_range> calibrate_ranges(program& prog,
                                          const target& t,
                                          const std::vector<parameter_map>& calibration,
                                          const std::vector<instruction_ref>& watched,
                                          bool histograms,
                                          const std::vector<std::int64_t>& axes       = {},
                                          std::size_t keep_outputs                    = 0,
                                          std::vector<std::vector<double>>* outputs = nullptr);

/// MIGRAPHX_TIME_QUANTIZE=1: lap(phase) prints "quantize_int8: <phase>: <ms> ms" on stderr, the
/// time since the timer was made or last lapped (quantize_int8's calibration, check, rewrite).
class phase_timer
{
    public:
    phase_timer();
    void lap(const std::string& phase);

    private:
    bool on_;
    std::chrono::steady_clock::time_point last_;
};

/// The symmetric scale that maps [-range, range] onto [-levels, levels] (range / levels); 1 for
/// a range that is 0, negative or not finite (no data: the quantizers' default).
float range_scale(float range, float levels);

/// All outputs of one run, flattened in order, as double.
std::vector<double> flatten_outputs(const std::vector<argument>& results);

/// Cosine similarity of two equally long vectors (1 when both are zero, 0 when one is, or
/// when a NaN appears or the lengths differ).
double cosine_similarity(const std::vector<double>& a, const std::vector<double>& b);

/// How a clipping threshold is chosen from a value_range:
///   "max": abs_max (no clipping);
///   "mse": the threshold T minimising the expected squared error of quantizing |x| to `levels`
///          equal steps over [0, T] (rounding noise step^2/12 inside, (|x| - T)^2 beyond);
///   "percentile:P": the P-th percentile of |x| (P in (0, 100]).
/// Falls back to abs_max without a histogram. Throws migraphx::exception for another method.
float choose_threshold(const value_range& r, int levels, const std::string& method);

} // namespace migraphx

#endif
