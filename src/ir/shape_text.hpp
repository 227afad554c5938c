#ifndef MIGRAPHX_IR_SHAPE_TEXT_HPP
#define MIGRAPHX_IR_SHAPE_TEXT_HPP

#include <migraphx/shape.hpp>
#include <sstream>
#include <string>

namespace migraphx {

/// A shape as printed (type, lens, strides), for error messages.
inline std::string shape_text(const shape& s)
{
    std::ostringstream ss;
    ss << s;
    return ss.str();
}

} // namespace migraphx

#endif
