#ifndef MIGRAPHX_DRIVER_VALIDATORS_HPP
#define MIGRAPHX_DRIVER_VALIDATORS_HPP

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <string>

namespace migraphx {
namespace driver {

/// A number of at least min, with a message that says so (CLI11's ranges print huge bounds).
inline CLI::Validator at_least(double min, const std::string& what)
{
    return CLI::Validator(
        [=](std::string& s) -> std::string {
            char* end = nullptr;
            double x  = std::strtod(s.c_str(), &end);
            if(end == s.c_str() or *end != '\0' or not(x >= min))
                return "'" + s + "' is not " + what;
            return "";
        },
        "", "at_least");
}

} // namespace driver
} // namespace migraphx

#endif
