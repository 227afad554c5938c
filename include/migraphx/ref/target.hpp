#ifndef MIGRAPHX_REF_TARGET_HPP
#define MIGRAPHX_REF_TARGET_HPP

#include <migraphx/compile_options.hpp>
#include <migraphx/context.hpp>
#include <migraphx/pass.hpp>
#include <string>
#include <vector>

namespace migraphx {
namespace ref {

/// The reference context: host execution, nothing to wait for.
struct context
{
    void finish() const {}
};

/// The reference target: every op's reference compute. The oracle for the other targets.
struct target
{
    std::string name() const { return "ref"; }
    std::vector<pass> get_passes(migraphx::context& ctx, const compile_options& options) const;
    migraphx::context get_context() const { return context{}; }
};

} // namespace ref
} // namespace migraphx

#endif
