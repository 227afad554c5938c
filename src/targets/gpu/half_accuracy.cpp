// half_accuracy.hpp: the search's known inputs, and how far a half result is from the exact one.
#include "targets/gpu/half_accuracy.hpp"
#include "targets/gpu/cuda_check.hpp"
#include "ir/env.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/half.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>

namespace migraphx {
namespace gpu {
namespace dnn {

fill_pattern fill_pattern::make(std::size_t n, float scale, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-scale, scale);
    fill_pattern p;
    p.halves.resize(std::max<std::size_t>(1, std::min<std::size_t>(n, 65521)));
    p.values.resize(p.halves.size());
    for(std::size_t i = 0; i < p.halves.size(); i++)
    {
        half h      = half(dist(gen));
        p.halves[i] = h.bits;
        p.values[i] = static_cast<float>(h);
    }
    return p;
}

void set_rounding(exact_samples& ref, bool half_result)
{
    double sq = 0;
    for(auto v : ref.exact)
    {
        auto e = half_result ? static_cast<float>(half(static_cast<float>(v))) - v : 0.0;
        sq += e * e;
    }
    ref.rounding_rms = ref.exact.empty() ? 0.0 : std::sqrt(sq / static_cast<double>(ref.exact.size()));
}

void upload_pattern(cudaStream_t s, void* p, std::size_t n, const fill_pattern& pattern)
{
    auto* dst     = static_cast<char*>(p);
    const auto& h = pattern.halves;
    for(std::size_t done = 0; done < n; done += h.size())
    {
        auto count = std::min(h.size(), n - done);
        MIGX_CUDA_CHECK(cudaMemcpyAsync(dst + done * 2, h.data(), count * 2, cudaMemcpyHostToDevice, s));
    }
    MIGX_CUDA_CHECK(cudaStreamSynchronize(s)); // the pattern's memory is the caller's
}

std::vector<std::uint16_t> download_halves(cudaStream_t s, const void* p, std::size_t n)
{
    std::vector<std::uint16_t> r(n);
    MIGX_CUDA_CHECK(cudaMemcpyAsync(r.data(), p, n * 2, cudaMemcpyDeviceToHost, s));
    MIGX_CUDA_CHECK(cudaStreamSynchronize(s));
    return r;
}

half_accuracy measure_accuracy(const exact_samples& ref, const std::uint16_t* y)
{
    half_accuracy a;
    if(ref.offsets.empty())
        return a;
    double sq = 0;
    for(std::size_t i = 0; i < ref.offsets.size(); i++)
    {
        double got = static_cast<float>(half::from_bits(y[ref.offsets[i]]));
        double d   = std::fabs(got - ref.exact[i]);
        if(not std::isfinite(d))
            return half_accuracy::failed(); // a NaN or infinity: as bad as not running
        sq += d * d;
        a.max_error = std::max(a.max_error, d);
    }
    a.rms_error = std::sqrt(sq / static_cast<double>(ref.offsets.size()));
    // A reference whose every sample is exact in half (all zero after relu): any error is
    // infinitely worse than rounding, none is as good.
    a.ratio = ref.rounding_rms > 0 ? a.rms_error / ref.rounding_rms
              : a.rms_error > 0    ? std::numeric_limits<double>::infinity()
                                   : 1.0;
    return a;
}

std::string half_accuracy::str() const
{
    std::ostringstream os;
    os.precision(3);
    os << "error " << ratio << "x rounding (rms " << rms_error << ", max " << max_error << ")";
    return os.str();
}

half_accuracy half_accuracy::failed()
{
    half_accuracy a;
    a.rms_error = a.max_error = a.ratio = std::numeric_limits<double>::infinity();
    return a;
}

double accuracy_limit_from_env()
{
    const char* name = "MIGRAPHX_GPU_ACCURACY_LIMIT";
    auto s           = env_string(name);
    if(s.empty())
        return 2.0;
    char* end = nullptr;
    double v  = std::strtod(s.c_str(), &end);
    if(end == s.c_str() or *end != '\0' or not std::isfinite(v) or v < 0 or (v > 0 and v < 1))
        MIGRAPHX_THROW(std::string(name) + "=" + s +
                       ": expected 0 (no check) or a number >= 1 (the error allowed, in multiples of rounding)");
    return v;
}

bool accurate_enough(const half_accuracy& a, double limit) { return limit <= 0 or a.ratio <= limit; }

std::optional<std::size_t> first_accurate(std::size_t count,
                                          const std::function<std::optional<half_accuracy>(std::size_t)>& measure,
                                          double limit)
{
    std::optional<std::size_t> most_accurate;
    double best_ratio = 0;
    for(std::size_t i = 0; i < count; i++)
    {
        auto acc = measure(i);
        if(not acc or accurate_enough(*acc, limit))
            return i;
        if(not most_accurate or acc->ratio < best_ratio)
        {
            most_accurate = i;
            best_ratio    = acc->ratio;
        }
    }
    return most_accurate;
}

std::string accuracy_key_words(double limit)
{
    if(limit <= 0)
        return {};
    std::ostringstream os;
    os.setf(std::ios::fixed);
    os.precision(2);
    os << ", accuracy limit " << limit;
    return os.str();
}

} // namespace dnn
} // namespace gpu
} // namespace migraphx
