#ifndef MIGRAPHX_MAKE_OP_HPP
#define MIGRAPHX_MAKE_OP_HPP

#include <migraphx/operation.hpp>
#include <migraphx/value.hpp>
#include <string>
#include <vector>

namespace migraphx {

/// The registered op of that name with default attributes; throws for an unknown name.
operation make_op(const std::string& name);
/// The op with the given attributes (an object); unknown attributes throw.
operation make_op(const std::string& name, const value& v);
/// The op with attributes from relaxed JSON, e.g. "{padding:[0,0],stride:[1,1]}".
operation make_json_op(const std::string& name, const std::string& json);

/// Names of every registered operation, sorted.
std::vector<std::string> get_operators();

} // namespace migraphx

#endif
