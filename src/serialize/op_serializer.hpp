#ifndef MIGRAPHX_SERIALIZE_OP_SERIALIZER_HPP
#define MIGRAPHX_SERIALIZE_OP_SERIALIZER_HPP

// How an .mxr file stores an op whose state is more than its reflect attributes (docs/mxr.md).
// Most ops need nothing here: make_op(name, op.to_value()) rebuilds them. A target registers an
// op_serializer, by op name or name prefix, for an op that also holds
// - bytes: a weight (the gpu target's hip::hip_copy_literal), a compiled binary (gpu::code_object's
//   cubin). They are written as @literal's are: raw and 64-byte aligned in msgpack (shared with the
//   mapped file on load, through literal::adopt), base64 in json; stored once, never as an array
//   of numbers. The instruction gets "literal": {"shape": ..., "data" | "base64": ...}.
// - other ops or modules, or a name that is not registered (gpu::ref::<op>): save/load.

#include <migraphx/literal.hpp>
#include <migraphx/module.hpp>
#include <migraphx/operation.hpp>
#include <migraphx/value.hpp>
#include <functional>
#include <optional>
#include <string>

namespace migraphx {
namespace serialize {

using module_lookup = std::function<module_ref(const std::string&)>;

struct op_serializer
{
    /// The bytes the op holds outside its attributes, if any (nullopt: nothing to store).
    std::function<std::optional<literal>(const operation&)> get_literal;
    /// Gives an op rebuilt from its attributes those bytes back.
    std::function<void(operation&, const literal&)> set_literal;
    /// Whether a file must hold bytes for the op (a weight), or may not (a cache, e.g. a binary).
    bool literal_required = false;
    /// The attributes to store (default: op.to_value()).
    std::function<value(const operation&)> save;
    /// Rebuilds the op from what save stored (default: make_op(name, attrs)); module gives a module
    /// of the program being loaded by name (throws if there is none).
    std::function<operation(const std::string& name, const value& attrs, const module_lookup& module)> load;
};

/// Registers s for the op called name, or (prefix = true) for every op whose name starts with name
/// and has no serializer of its own name. A later registration of the same name replaces it.
void register_op_serializer(const std::string& name, op_serializer s, bool prefix = false);

/// The serializer for an op name, or nullptr.
const op_serializer* find_op_serializer(const std::string& name);

} // namespace serialize
} // namespace migraphx

#endif
