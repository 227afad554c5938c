#ifndef MIGRAPHX_IR_DYNAMIC_PROGRAM_HPP
#define MIGRAPHX_IR_DYNAMIC_PROGRAM_HPP

// Dynamic shapes by specialisation: a program whose inputs have dimension ranges keeps the
// source it came from (e.g. the ONNX model) and, at eval, builds and compiles a static program
// for the input shapes actually given, caching it. A shape seen before runs a static program,
// so it runs at static speed; a new shape costs one specialisation and compile.

#include <migraphx/program.hpp>
#include <migraphx/shape.hpp>
#include <migraphx/value.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace migraphx {

using input_dims_map = std::unordered_map<std::string, std::vector<std::size_t>>;
using input_ranges_map = std::unordered_map<std::string, std::vector<shape::dynamic_dimension>>;

/// Where a dynamic program came from, and how to make a static program of it for given dims.
struct dynamic_source
{
    /// Every input with a non-fixed dimension, all of its dims (fixed ones have min == max).
    input_ranges_map ranges;
    /// The kind of source ("onnx") and what rebuilds it: written to and read from .mxr files.
    std::string kind;
    std::shared_ptr<const std::string> payload;
    value options;
    /// An uncompiled static program for the given dims of the dynamic inputs.
    std::function<program(const input_dims_map&)> specialize;
};

/// Rebuilds the specialize function of a source read back from a .mxr file.
using specializer_factory = std::function<std::function<program(const input_dims_map&)>(
    std::shared_ptr<const std::string> payload, const value& options)>;
void register_specializer(const std::string& kind, specializer_factory f);
/// Fills source.specialize from its kind; throws if the kind is unknown (e.g. built without ONNX).
/// The transforms recorded in source.options["transforms"] (record_transform) then apply to
/// every variant it makes.
void restore_specializer(dynamic_source& source);

/// A whole-program transform (quantize_fp16) that must also apply to each variant of a dynamic
/// program made later: registered by name by the layer that owns it.
using variant_transform = std::function<void(program&, const value& args)>;
void register_variant_transform(const std::string& name, variant_transform f);
/// Records on p's dynamic source (if p has one) that `name` with args applies to every variant:
/// the source is copied with the transform in its options (so a saved .mxr keeps it) and the
/// variants made so far are dropped. Nothing for a static program.
void record_transform(program& p, const std::string& name, const value& args);

/// Makes p dynamic: its inputs get the source's ranges, eval specialises per shape.
void set_dynamic_source(program& p, std::shared_ptr<const dynamic_source> source);
/// The program's source, or nullptr for a static program.
std::shared_ptr<const dynamic_source> get_dynamic_source(const program& p);

/// The dims of each dynamic input in params, checked against the ranges; throws a
/// migraphx::exception naming the input, the shape given and the range.
input_dims_map dynamic_input_dims(const dynamic_source& source, const parameter_map& params);

/// Compiled static variants of one dynamic program, least recently used first out.
/// MIGRAPHX_DYNAMIC_CACHE_SIZE bounds how many are kept (default 16). Safe to use from several
/// threads at once (a program may be run on several): a variant is made outside the lock (two
/// threads asking for the same new shape may both make it; the first kept wins), and a caller's
/// shared_ptr keeps a variant alive while it runs, after another thread evicted it.
class variant_cache
{
    public:
    /// The variant for dims, made by make() the first time.
    std::shared_ptr<program> get(const input_dims_map& dims, const std::function<program()>& make);
    std::size_t size() const;

    private:
    using key_type = std::map<std::string, std::vector<std::size_t>>;
    mutable std::mutex m;
    std::vector<std::pair<key_type, std::shared_ptr<program>>> entries; // most recent last
};

/// The largest dims of each range.
input_dims_map max_dims_of(const input_ranges_map& ranges);
/// Specialises and compiles the shapes made of the ranges' optimal values (at most 8), so their
/// first run costs no compile. Called by program::compile.
void precompile_optimals(const program& p);

/// The variant that runs params where p is dynamic and params' dims are not those p was built
/// for: the cached one, specialised and compiled like p on first use; nullptr where p itself
/// runs. Hold the pointer while the variant runs (another thread may evict it from the cache).
std::shared_ptr<const program> variant_for(const program& p, const parameter_map& params);
/// params for the variant v: output buffers of an offload_copy=false program, sized for the
/// largest shape, are narrowed to v's output shapes.
parameter_map params_for(const program& v, const parameter_map& params);

} // namespace migraphx

#endif
