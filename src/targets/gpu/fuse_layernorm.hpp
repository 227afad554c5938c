#ifndef MIGRAPHX_GPU_FUSE_LAYERNORM_HPP
#define MIGRAPHX_GPU_FUSE_LAYERNORM_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {
namespace gpu {

/// The ONNX importer's LayerNormalization (passes/layernorm_match.hpp), float or half, becomes
/// one `layernorm` op, which lowering runs as one generated kernel (two reductions and four
/// pointwise kernels before), with the scale and shift that follow it as the op's second and third
/// inputs (passes/layernorm_match.hpp: match_layernorm_affine). Runs before fuse_pointwise, which would merge the pattern's
/// pointwise ops away. Then an add before a layer norm (not a product's residual) and a convert
/// to float after it go into the same op (its addends and float_out; MIGRAPHX_DISABLE_LAYERNORM_FOLDS=1
/// leaves them). MIGRAPHX_DISABLE_PASSES=gpu::fuse_layernorm turns it all off.
struct fuse_layernorm
{
    std::string name() const { return "gpu::fuse_layernorm"; }
    void apply(module& m) const;
};

} // namespace gpu
} // namespace migraphx

#endif
