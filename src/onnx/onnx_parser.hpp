#ifndef MIGRAPHX_ONNX_ONNX_PARSER_HPP
#define MIGRAPHX_ONNX_ONNX_PARSER_HPP

// The ONNX importer's core: model loading, the scope of named values, attribute access, and the
// table of per-op parse functions that the parse_*.cpp files fill (one file per op family).

#include <migraphx/errors.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/module.hpp>
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <onnx/onnx_pb.h>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace migraphx {
namespace onnx {

namespace pb = ::onnx;

struct onnx_parser;

/// Name -> value of the graph being parsed (a sub-graph sees its parents' values too).
using scope_map = std::unordered_map<std::string, instruction_ref>;

/// What a parse function sees of one node, plus helpers to add instructions to its module.
struct node_info
{
    std::string op_type;
    std::string name;
    std::int64_t opset = 1; // version of the node's domain
    std::size_t num_outputs = 1;  // outputs the node lists
    std::size_t used_outputs = 1; // one past the last output with a name (others are omitted)
    std::unordered_map<std::string, const pb::AttributeProto*> attributes;
    module* mod         = nullptr;
    onnx_parser* parser = nullptr;
    const scope_map* scope = nullptr;

    // Attributes ---------------------------------------------------------------------------
    bool has(const std::string& attr) const { return attributes.count(attr) > 0; }
    std::int64_t get_int(const std::string& attr, std::int64_t def) const;
    float get_float(const std::string& attr, float def) const;
    std::string get_string(const std::string& attr, const std::string& def) const;
    std::vector<std::int64_t> get_ints(const std::string& attr, std::vector<std::int64_t> def = {}) const;
    std::vector<float> get_floats(const std::string& attr, std::vector<float> def = {}) const;
    literal get_tensor(const std::string& attr) const;
    const pb::GraphProto& get_graph(const std::string& attr) const;

    // Building -----------------------------------------------------------------------------
    instruction_ref add_instruction(const operation& op, std::vector<instruction_ref> args) const;
    instruction_ref add(const std::string& op_name, std::vector<instruction_ref> args) const;
    instruction_ref add(const std::string& op_name, const value& attrs, std::vector<instruction_ref> args) const;
    instruction_ref add_literal(literal l) const;
    /// A scalar literal of type t.
    instruction_ref add_scalar(double x, shape::type_t t) const;
    /// Numpy-broadcasts a and b to common lens, then applies the binary op.
    instruction_ref add_broadcastable_binary_op(const std::string& op_name, instruction_ref a, instruction_ref b) const;
    /// Broadcasts every input to the common lens, then applies the op.
    instruction_ref add_common_op(const std::string& op_name, std::vector<instruction_ref> args) const;
    /// Broadcasts every input to the common lens (multibroadcast only where needed).
    std::vector<instruction_ref> broadcast_all(std::vector<instruction_ref> args) const;
    instruction_ref broadcast_to(instruction_ref x, const std::vector<std::size_t>& lens) const;
    instruction_ref convert(instruction_ref x, shape::type_t t) const;
    instruction_ref make_contiguous(instruction_ref x) const;

    // Constants ----------------------------------------------------------------------------
    /// The value of x when it depends only on literals (folded at parse time), else nullopt.
    std::optional<argument> eval(instruction_ref x) const;
    /// The value x has at the declared shapes: like eval, but a dimensions_of (the Shape of a
    /// data-dependent result, computed at run time) counts as its input's declared (largest) lens.
    /// For a size computed from such a Shape this is the largest size, which the run-time ops
    /// (topk's k input, broadcast_with_dims, reshape_with_dims) declare as their static shape.
    std::optional<argument> eval_declared(instruction_ref x) const;
    /// Like eval, but throws, naming what the input is for, when x is not a constant. A value
    /// computed from the Shape of a data-dependent result gives its declared value (the parse
    /// functions that take such sizes at run time check eval_declared first).
    argument require_constant(instruction_ref x, const std::string& what) const;
    /// True for the placeholder of an omitted optional input ("" in the node's input list).
    bool is_undefined(instruction_ref x) const;
    /// ONNX sequences live at parse time only: a placeholder instruction stands for a list of values.
    instruction_ref make_sequence(std::vector<instruction_ref> elements) const;
    const std::vector<instruction_ref>& get_sequence(instruction_ref x) const;
    /// Throws a migraphx::exception naming the node.
    [[noreturn]] void fail(const std::string& msg) const;
    /// Fails when a table the parser builds (indices, weights, masks) would have more than 2^24
    /// entries: a corrupt model must not make the parser allocate without bound.
    void check_size(std::size_t n, const std::string& what) const;
};

using parse_fn = std::function<std::vector<instruction_ref>(const node_info&, std::vector<instruction_ref>)>;

/// Registers fn as the parser of the ONNX op types names (default domain).
void register_onnx_parser(const std::vector<std::string>& names, parse_fn fn);
/// The parser of op_type, or nullptr.
const parse_fn* find_onnx_parser(const std::string& op_type);

struct parser_registrar
{
    parser_registrar(const std::vector<std::string>& names, parse_fn fn)
    {
        register_onnx_parser(names, std::move(fn));
    }
};

#define MIGRAPHX_ONNX_CAT2(a, b) a##b
#define MIGRAPHX_ONNX_CAT(a, b) MIGRAPHX_ONNX_CAT2(a, b)
/// MIGRAPHX_ONNX_PARSER(fn, "Relu", "Tanh") registers fn for those op types.
#define MIGRAPHX_ONNX_PARSER(fn, ...)                                                                    \
    static const ::migraphx::onnx::parser_registrar MIGRAPHX_ONNX_CAT(onnx_parser_registrar_, __COUNTER__)( \
        std::vector<std::string>{__VA_ARGS__}, fn);

/// The whole-model state of one parse.
/// A TensorProto's values; external data is read relative to model_dir.
literal tensor_literal(const pb::TensorProto& t, const std::string& model_dir);

struct onnx_parser
{
    onnx_options options;
    program prog;
    std::string model_dir; // external tensor data is read relative to it
    std::map<std::string, std::int64_t> opsets; // domain -> version
    /// Symbolic dims met on inputs (dim_param name -> the value used).
    std::map<std::string, std::size_t> symbolic_dims;
    /// Constant-folded values, by instruction address; and the same at the declared shapes.
    mutable std::unordered_map<const instruction*, argument> folded;
    mutable std::unordered_map<const instruction*, argument> folded_declared;
    /// The elements of each sequence placeholder, by instruction address.
    std::unordered_map<const instruction*, std::vector<instruction_ref>> sequences;
    std::size_t subgraph_depth = 0;

    void parse_model(const pb::ModelProto& model);
    /// Parses g's nodes into mod with the given values in scope; returns g's outputs.
    std::vector<instruction_ref>
    parse_graph_nodes(module* mod, const pb::GraphProto& g, scope_map& scope, bool initializers = true);
    /// Parses a sub-graph inline into mod: its inputs are bound to args (in order).
    std::vector<instruction_ref> inline_subgraph(module* mod,
                                                 const pb::GraphProto& g,
                                                 const scope_map& outer,
                                                 const std::vector<instruction_ref>& args);
    std::vector<instruction_ref> parse_node(module* mod, const pb::NodeProto& node, const scope_map& scope);
    shape parse_input_shape(const pb::ValueInfoProto& input);
    literal parse_tensor(const pb::TensorProto& t) const;
    instruction_ref undefined(module* mod);
    std::optional<argument> eval(instruction_ref x, bool declared = false) const;
};

/// Whether x is computed from the result of an op whose output size depends on the data
/// (attribute dynamic_output: nonzero, nonmaxsuppression, unique, compress, loop...): its static
/// shape is the largest, the actual one may be smaller (docs/internal/op-conventions.md).
bool from_dynamic_output(instruction_ref x);

/// For each dim of x (computed from data-dependent results): whether its run-time length may
/// differ from the declared one. The shapes from those results to x are computed again with the
/// results' data-dependent dims (their attribute dynamic_axes, else every dim) at 1 and at 2; a dim
/// of x that keeps its declared length both times does not depend on them (a NonZero's index
/// columns transposed to [K, rank] keep rank, so torch's `.squeeze(1)` guard on it is known).
/// Every dim is reported dynamic where an op refuses a probe size or holds sub-modules.
std::vector<bool> dynamic_dims(instruction_ref x);

/// TensorProto::FLOAT8E4M3FN (ONNX 1.14, opset 19), spelled out: Debian's ONNX protos predate it.
constexpr int onnx_float8e4m3fn = 17;

/// ONNX TensorProto data type -> shape type; throws for unsupported ones (strings, complex,
/// bfloat16, the float8 types other than FLOAT8E4M3FN).
shape::type_t get_onnx_type(int onnx_type);
/// "float", "int64", ... for messages.
std::string onnx_type_name(int onnx_type);

/// Normalizes an axis against rank (negative counts from the end); throws if out of range.
std::int64_t normalize_onnx_axis(std::int64_t axis, std::size_t rank, const node_info& info);

} // namespace onnx
} // namespace migraphx

#endif
