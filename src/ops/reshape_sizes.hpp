#ifndef MIGRAPHX_OPS_RESHAPE_SIZES_HPP
#define MIGRAPHX_OPS_RESHAPE_SIZES_HPP

// ONNX Reshape's reading of the sizes it is given, shared by the parser (constant sizes), op::reshape
// and reshape_with_dims (sizes read at run time) and the gpu target's device form of the latter.

#include "ops/broadcast_lens.hpp"
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace migraphx {

/// The lens `want` gives an input of lens `in`: a 0 copies in's dim (unless allowzero), one -1 is
/// inferred. `fail` is called (and must throw) with what does not fit. A -1 of an empty tensor
/// (any length fits) takes `declared`'s length where given, else fails.
inline std::vector<std::size_t> reshape_sizes(const std::vector<std::int64_t>& want,
                                              const std::vector<std::size_t>& in,
                                              bool allowzero,
                                              const std::function<void(const std::string&)>& fail,
                                              const std::vector<std::size_t>* declared = nullptr)
{
    std::size_t n = 1;
    for(auto l : in)
        n *= l;
    std::vector<std::size_t> lens(want.size());
    std::size_t known    = 1;
    std::ptrdiff_t infer = -1;
    for(std::size_t i = 0; i < want.size(); i++)
    {
        if(want[i] == -1)
        {
            if(infer >= 0)
                fail("the shape holds more than one -1");
            infer = static_cast<std::ptrdiff_t>(i);
            continue;
        }
        if(want[i] < -1)
            fail("the shape holds a negative size " + std::to_string(want[i]));
        if(want[i] == 0 and not allowzero)
        {
            if(i >= in.size())
                fail("a 0 at index " + std::to_string(i) + " has no input dim to copy");
            lens[i] = i < in.size() ? in[i] : 0;
        }
        else
            lens[i] = static_cast<std::size_t>(want[i]);
        known *= lens[i];
    }
    if(infer >= 0 and known == 0 and n == 0 and declared != nullptr and
       static_cast<std::size_t>(infer) < declared->size())
        lens[infer] = (*declared)[infer]; // any length holds no elements: the declared one
    else if(infer >= 0)
    {
        if(known == 0 or n % known != 0)
            fail("cannot infer the -1 size: " + std::to_string(n) + " elements into " + lens_string(lens));
        lens[infer] = known == 0 ? 0 : n / known;
    }
    std::size_t m = 1;
    for(auto l : lens)
        m *= l;
    if(m != n)
        fail("cannot reshape " + lens_string(in) + " to " + lens_string(lens));
    return lens;
}

} // namespace migraphx

#endif
