#ifndef MIGRAPHX_IR_ENV_HPP
#define MIGRAPHX_IR_ENV_HPP

#include <cstdlib>
#include <string>

namespace migraphx {

/// The variable's text, or "" if unset.
inline std::string env_string(const char* name)
{
    const char* v = std::getenv(name);
    return v == nullptr ? std::string{} : std::string{v};
}

/// The variable as a number (0 if unset or not a number): MIGRAPHX_TRACE_EVAL=2 -> 2.
inline long env_level(const char* name)
{
    auto s = env_string(name);
    if(s.empty())
        return 0;
    char* end = nullptr;
    long v    = std::strtol(s.c_str(), &end, 10);
    if(end == s.c_str())
        return (s == "true" or s == "on" or s == "yes" or s == "ON" or s == "TRUE") ? 1 : 0;
    return v;
}

inline bool env_enabled(const char* name) { return env_level(name) > 0; }

/// Whether a switch that is on by default is turned off: set, and not to a positive level
/// (MIGRAPHX_GPU_RNN_STACK=0 or =off; unset is on).
inline bool env_disabled(const char* name) { return not env_string(name).empty() and not env_enabled(name); }

} // namespace migraphx

#endif
