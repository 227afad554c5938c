#ifndef MIGRAPHX_GENERATE_HPP
#define MIGRAPHX_GENERATE_HPP

#include <migraphx/argument.hpp>
#include <migraphx/literal.hpp>

#endif
