#ifndef MIGRAPHX_PASSES_FUSE_POINTWISE_HPP
#define MIGRAPHX_PASSES_FUSE_POINTWISE_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {

struct program;

/// Turns every maximal chain of elementwise ops (ops whose attributes() say {"pointwise": true})
/// into one `pointwise(inputs...), [<module>:pointwise<k>]` instruction whose sub-module holds
/// the chain (see src/ops/pointwise_fused.cpp for its form). A single elementwise op is wrapped
/// too, so a target lowers one kind of thing. An op joins its producer's chain only when the
/// producer's result has no other user; views (broadcast, transpose...) and everything else stay
/// outside as inputs, except a broadcast one-element literal: that literal and its broadcast
/// move inside as a constant.
///
/// Sub-modules are created in the program that run_passes(program&, ...) is working on
/// (current_program()), or in `prog` when set. Modules that are themselves the body of a
/// `pointwise` are left alone.
struct fuse_pointwise
{
    program* prog = nullptr;
    std::string name() const { return "fuse_pointwise"; }
    void apply(module& m) const;
};

} // namespace migraphx

#endif
