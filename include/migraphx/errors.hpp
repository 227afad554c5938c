#ifndef MIGRAPHX_ERRORS_HPP
#define MIGRAPHX_ERRORS_HPP

#include <stdexcept>
#include <string>

namespace migraphx {

/// The one exception type of the API. The message names what was wrong and where.
struct exception : std::runtime_error
{
    explicit exception(const std::string& msg) : std::runtime_error(msg) {}
};

/// Builds an exception whose message starts with the source location, so a user reports it usefully.
inline exception make_exception(const std::string& where, const std::string& msg)
{
    return exception(where + ": " + msg);
}

} // namespace migraphx

#define MIGRAPHX_STRINGIZE_1(x) #x
#define MIGRAPHX_STRINGIZE(x) MIGRAPHX_STRINGIZE_1(x)
/// Throws migraphx::exception with the file:line of the throw site prepended.
#define MIGRAPHX_THROW(msg) \
    throw ::migraphx::make_exception(std::string(__FILE__ ":" MIGRAPHX_STRINGIZE(__LINE__)), (msg))

#endif
