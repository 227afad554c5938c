#include <migraphx/cpu/target.hpp>
#include <migraphx/target.hpp>
#include "passes/dead_code_elimination.hpp"
#include "passes/fuse_pointwise.hpp"
#include "passes/rewrite_rnn.hpp"
#include "passes/simplify_pipeline.hpp"
#include "targets/cpu/blocked_layout.hpp"
#include "targets/cpu/concat_kernel.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include "targets/cpu/dnnl_rnn.hpp"
#include "targets/cpu/gather_kernel.hpp"
#include "targets/cpu/layernorm_kernel.hpp"
#include "targets/cpu/lerp_kernel.hpp"
#include "targets/cpu/lower_actual_sizes.hpp"
#include "targets/cpu/lower_dnnl.hpp"
#include "targets/cpu/lower_dnnl_int8.hpp"
#include "targets/cpu/lower_gemm.hpp"
#include "targets/cpu/lower_pointwise.hpp"
#include "targets/cpu/pack_weights.hpp"
#include "targets/cpu/plan_memory.hpp"
#include "targets/cpu/row_kernels.hpp"
#include "targets/cpu/sum_in_place.hpp"

namespace migraphx {
namespace cpu {

std::vector<pass> target::get_passes(migraphx::context& ctx, const compile_options&) const
{
    // Recurrences oneDNN computes stay whole for cpu::lower_dnnl; the rest are unrolled.
    std::vector<pass> passes{rewrite_rnn{[](instruction_ref ins) { return plain_dnnl_rnn(ins).has_value(); }}};
    auto simplify = simplify_passes();
    passes.insert(passes.end(), simplify.begin(), simplify.end());
    passes.insert(passes.end(),
                  {fuse_layernorm{},
                   dead_code_elimination{},
                   lower_row_ops{},
                   lower_lerp{},
                   dead_code_elimination{},
                   lower_gather{},
                   lower_dnnl_int8{},
                   lower_dnnl{},
                   dead_code_elimination{},
                   lower_gemm{},
                   dead_code_elimination{},
                   blocked_layout{&ctx},
                   dead_code_elimination{},
                   pack_weights{&ctx},
                   fuse_pointwise{},
                   lower_pointwise{},
                   lower_concat{},
                   dead_code_elimination{},
                   sum_in_place{},
                   plan_memory{},
                   lower_actual_sizes{}});
    return passes;
}

migraphx::context target::get_context() const { return dnnl_context{}; }

namespace {
const bool registered = [] {
    register_target(target{});
    return true;
}();
} // namespace

} // namespace cpu
} // namespace migraphx
