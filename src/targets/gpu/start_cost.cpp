#include "targets/gpu/start_cost.hpp"
#include "ir/env.hpp"
#include <migraphx/errors.hpp>
#include <cstdlib>
#include <sstream>

namespace migraphx {
namespace gpu {

std::string start_policy::str() const
{
    std::ostringstream ss;
    ss << "start margin " << margin * 100 << "%, slow start " << slow_start_ms << " ms";
    return ss.str();
}

start_policy start_policy::from_env()
{
    start_policy p;
    auto s = env_string("MIGRAPHX_CUDNN_START_MARGIN");
    if(s.empty())
        return p;
    char* end = nullptr;
    double v  = std::strtod(s.c_str(), &end);
    if(end != s.c_str() + s.size() or not(v >= 0 and v <= 100))
        MIGRAPHX_THROW("MIGRAPHX_CUDNN_START_MARGIN=" + s + ": expected a percentage from 0 to 100");
    p.margin = v / 100;
    return p;
}

std::size_t keep_algorithm(const std::vector<timed_algorithm>& algos, const start_policy& p)
{
    if(algos.empty())
        MIGRAPHX_THROW("keep_algorithm: no algorithm to keep");
    const auto& fastest = algos.front();
    if(not p.enabled() or fastest.start_ms < p.slow_start_ms)
        return 0;
    std::size_t kept = 0;
    for(std::size_t i = 1; i < algos.size(); i++)
    {
        if(algos[i].run_ms > fastest.run_ms * (1 + p.margin))
            continue;
        if(algos[i].start_ms < algos[kept].start_ms)
            kept = i;
    }
    return kept;
}

} // namespace gpu
} // namespace migraphx
