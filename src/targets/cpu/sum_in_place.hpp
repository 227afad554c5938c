#ifndef MIGRAPHX_CPU_SUM_IN_PLACE_HPP
#define MIGRAPHX_CPU_SUM_IN_PLACE_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace cpu {

/// A oneDNN convolution or matmul with a residual sum post-op adds its result to what its
/// destination holds, so the summand is first copied into the result (ResNet-50: ~20 MB a run).
/// Where the op is the summand's last reader, and the summand is a result of this module's own
/// (not a parameter, literal or view, nothing reads it later or through a view, not returned),
/// the op writes into the summand's buffer instead (`sum_in_place`, the result aliases it).
struct sum_in_place
{
    std::string name() const { return "cpu::sum_in_place"; }
    void apply(module& m) const;
};

} // namespace cpu
} // namespace migraphx

#endif
