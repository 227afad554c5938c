#ifndef MIGRAPHX_PROGRAM_HPP
#define MIGRAPHX_PROGRAM_HPP

#include <migraphx/argument.hpp>
#include <migraphx/compile_options.hpp>
#include <migraphx/module.hpp>
#include <migraphx/target.hpp>
// The spec's programs print with std::cout and printf after including only migraphx headers,
// as MIGraphX's headers allow; keep these.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace migraphx {

using parameter_map = std::unordered_map<std::string, argument>;

/// A model: a main module plus any sub-modules, compiled for one target and then evaluated.
/// A program is not safe to evaluate from several threads at once; use one per thread.
struct program
{
    program();
    ~program();
    program(program&&) noexcept;
    program& operator=(program&&) noexcept;
    /// Deep copy (a compiled program copies its compiled state too).
    program(const program& other);
    program& operator=(const program& other);

    module* get_main_module();
    const module* get_main_module() const;
    module* create_module(const std::string& name);
    module* get_module(const std::string& name) const; // throws if absent
    std::vector<const module*> get_modules() const;
    void remove_module(const std::string& name);

    /// Model inputs by name (parameters of the main module).
    std::unordered_map<std::string, shape> get_inputs() const;
    /// Model outputs by name, in the order of get_output_names().
    std::unordered_map<std::string, shape> get_outputs() const;
    /// Output names in output order (ONNX graph order; otherwise "main:#output_<i>").
    std::vector<std::string> get_output_names() const;
    void set_output_names(std::vector<std::string> names);
    std::vector<shape> get_output_shapes() const;
    std::vector<std::string> get_parameter_names() const;
    std::unordered_map<std::string, shape> get_parameter_shapes() const;

    /// Runs the target's passes; the program then evaluates on that target.
    void compile(const target& t, compile_options options = compile_options{});
    bool is_compiled() const;
    /// Name of the target compiled for ("" if none).
    std::string target_name() const;
    context& get_context() const;

    /// Runs the program. params holds every input by name (and, for a gpu program compiled with
    /// offload_copy=false, the output buffers). Synchronous. Returns all outputs in order, or
    /// the named ones.
    std::vector<argument> eval(const parameter_map& params) const;
    std::vector<argument> eval(const parameter_map& params, const std::vector<std::string>& output_names) const;

    /// Bytes of scratch memory a run needs on the target (after compile).
    std::size_t get_memory_usage() const;

    /// Runs finalize() on every instruction (done by compile).
    void finalize();

    friend bool operator==(const program& a, const program& b);
    friend bool operator!=(const program& a, const program& b) { return not(a == b); }
    /// Every module as `module: "name"` followed by its instructions, in the spec's format.
    friend std::ostream& operator<<(std::ostream& os, const program& p);

    struct impl;
    impl& get_impl() const { return *m_impl; }

    private:
    std::unique_ptr<impl> m_impl;
};

} // namespace migraphx

#endif
