#ifndef MIGRAPHX_REGISTER_OP_HPP
#define MIGRAPHX_REGISTER_OP_HPP

#include <migraphx/operation.hpp>
#include <functional>
#include <string>

namespace migraphx {

void register_op_factory(const std::string& name, std::function<operation()> factory);

template <class T>
struct op_registrar
{
    op_registrar() { register_op_factory(T{}.name(), [] { return operation{T{}}; }); }
};

} // namespace migraphx

#define MIGRAPHX_REGISTER_OP_CAT2(a, b) a##b
#define MIGRAPHX_REGISTER_OP_CAT(a, b) MIGRAPHX_REGISTER_OP_CAT2(a, b)
/// Registers op type T under T{}.name() for make_op.
#define MIGRAPHX_REGISTER_OP(T) \
    static const ::migraphx::op_registrar<T> MIGRAPHX_REGISTER_OP_CAT(migraphx_op_registrar_, __COUNTER__){};

#endif
