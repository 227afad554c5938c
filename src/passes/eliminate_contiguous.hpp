#ifndef MIGRAPHX_PASSES_ELIMINATE_CONTIGUOUS_HPP
#define MIGRAPHX_PASSES_ELIMINATE_CONTIGUOUS_HPP

#include <migraphx/module.hpp>
#include <string>

namespace migraphx {

/// Lets users of a contiguous read its (non-standard) input directly where their op accepts
/// that input: the user's shape is recomputed with the new input, and every user downstream
/// whose shape would change must accept it too. @return keeps its contiguous (outputs stay
/// standard). A contiguous left without users is removed.
struct eliminate_contiguous
{
    std::string name() const { return "eliminate_contiguous"; }
    void apply(module& m) const;
};

} // namespace migraphx

#endif
