#ifndef MIGRAPHX_IR_ACTUAL_SIZES_HPP
#define MIGRAPHX_IR_ACTUAL_SIZES_HPP
// The shapes an op computes with when an input holds fewer entries than declared: the actual
// rows of a data-dependent result (nonzero, nonmaxsuppression, unique...), whose static shape is
// its largest. Used by eval (every target) and by the gpu target's host fallbacks.

#include <migraphx/argument.hpp>
#include <migraphx/module.hpp>
#include <migraphx/operation.hpp>
#include <migraphx/shape.hpp>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace migraphx {

/// What an op computes with for some inputs: its output shape and, only where declared sizes in
/// its attributes were replaced by actual ones, another op (else the caller's own: no copy of the
/// op on the common path, whose lazily built state a copy could lose).
struct sized_op
{
    std::optional<operation> replaced;
    shape output;
    /// The shapes to view the inputs with, where an input broadcast to a declared size was
    /// shrunk to the actual one (else empty: the inputs as given).
    std::vector<shape> inputs{};
};

/// Copies of op whose integer-list attributes that spell the declared output lens (a reshape's
/// dims, a multibroadcast's out_lens: sizes the parser resolved from the static shapes) have their
/// entries equal to a declared data-dependent size N replaced by its actual size n (sizes: N -> n).
/// Positions where N occurs are tried in subsets, fewest first (the same number may also be a
/// fixed dim).
std::vector<operation> follow_actual_sizes(const operation& op,
                                           const shape& declared,
                                           const std::vector<std::pair<std::size_t, std::size_t>>& sizes);

/// declared_out, unless an actual input is smaller than its declared shape: then the op's shape
/// for what it really got (so that a view of such a result describes its memory), first trying
/// the op with the actual size in its attributes (reshape[dims={8,1,1,1}] after a nonzero of 8
/// declared rows); declared_out where the op takes no other shapes (its compute says why).
/// Where the op takes no shape for the inputs as they are and they have one declared shape (an
/// elementwise op's), an input broadcast along a dim that another input holds fewer of (stride
/// 0, the declared length: a scalar multibroadcast to a data-dependent size) is viewed with the
/// actual length (sized_op::inputs). A scatter's broadcast destination keeps its size: the op
/// takes the inputs as they are.
sized_op actual_output_shape(const operation& op,
                             const shape& declared_out,
                             const std::vector<shape>& declared_in,
                             const std::vector<shape>& actual_in,
                             const std::vector<module_ref>& mods = {});

/// args viewed with sized.inputs (a broadcast input shrunk to the actual length: no data moves),
/// each where its shape differs; args as they are where sized.inputs is empty. What eval and the
/// gpu target's host fallbacks do between actual_output_shape and the op's compute.
void view_sized_inputs(const sized_op& sized, std::vector<argument>& args);

/// How to compute instruction ins on args, as eval does: nullopt when every argument has its
/// input's declared lens (compute ins as declared; no allocation); else actual_output_shape's
/// op and shape for what it got, with args already viewed by view_sized_inputs. Shared by eval
/// and the gpu target's host fallbacks.
std::optional<sized_op> sized_for(instruction_ref ins, std::vector<argument>& args);

/// ins (an op without sub-modules) computed on args as eval computes it: at its declared shape,
/// or at sized_for's shape for what it got (computed at the declared shape, a convert of a
/// nonzero's 3 actual rows of 8 declared threw; a reshape view overran). On ctx where given (a
/// target's op), else as on ref. Shared by eval, the driver's perf and the gpu host fallbacks.
/// args may be changed (viewed at the actual sizes).
argument compute_sized(instruction_ref ins, std::vector<argument>& args, context* ctx = nullptr);

} // namespace migraphx

#endif
