#include <migraphx/program.hpp>
#include "ir/block_cache.hpp"
#include <migraphx/errors.hpp>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <ostream>
#include <sstream>
#include "ir/builtin.hpp"
#include "ir/dynamic_program.hpp"
#include "ir/env.hpp"
#include "ir/eval.hpp"
#include "ir/program_impl.hpp"
#include "ir/shared_literals.hpp"
#include "ir/last_use.hpp"
#include "passes/pass_manager.hpp"

namespace migraphx {

program::program() : m_impl(std::make_unique<impl>()) { m_impl->modules.push_back(std::make_unique<module>("main")); }
program::~program()                             = default;
program::program(program&&) noexcept            = default;
program& program::operator=(program&&) noexcept = default;

program::program(const program& other) : m_impl(std::make_unique<impl>()) { *this = other; }

program& program::operator=(const program& other)
{
    if(this == &other)
        return *this;
    auto copy = std::make_unique<impl>();
    copy_program_impl(*other.m_impl, *copy);
    m_impl = std::move(copy);
    return *this;
}

module* program::get_main_module() { return m_impl->modules.front().get(); }
const module* program::get_main_module() const { return m_impl->modules.front().get(); }

module* program::create_module(const std::string& name)
{
    for(const auto& m : m_impl->modules)
        if(m->name() == name)
            MIGRAPHX_THROW("program: module '" + name + "' already exists");
    m_impl->modules.push_back(std::make_unique<module>(name));
    return m_impl->modules.back().get();
}

module* program::get_module(const std::string& name) const
{
    for(const auto& m : m_impl->modules)
        if(m->name() == name)
            return m.get();
    MIGRAPHX_THROW("program: no module named '" + name + "'");
}

std::vector<const module*> program::get_modules() const
{
    std::vector<const module*> r;
    for(const auto& m : m_impl->modules)
        r.push_back(m.get());
    return r;
}

void program::remove_module(const std::string& name)
{
    if(name == "main")
        MIGRAPHX_THROW("program: cannot remove the main module");
    auto& mods = m_impl->modules;
    mods.erase(std::remove_if(mods.begin(), mods.end(), [&](const auto& m) { return m->name() == name; }), mods.end());
}

std::vector<std::string> program::get_parameter_names() const { return get_main_module()->get_parameter_names(); }
std::unordered_map<std::string, shape> program::get_parameter_shapes() const
{
    auto r = get_main_module()->get_parameter_shapes();
    // A dynamic input shows its range; the module holds it at its largest dims.
    if(m_impl->dynamic != nullptr)
        for(const auto& [name, range] : m_impl->dynamic->ranges)
        {
            auto it = r.find(name);
            if(it != r.end())
                it->second = shape::from_dyn_dims(it->second.type(), range);
        }
    return r;
}

std::unordered_map<std::string, shape> program::get_inputs() const
{
    auto r = get_parameter_shapes();
    // Output buffers of an offload_copy=false program are parameters too, but not inputs.
    for(const auto& n : m_impl->output_param_names)
        r.erase(n);
    return r;
}

std::vector<shape> program::get_output_shapes() const
{
    if(not m_impl->original_output_shapes.empty())
        return m_impl->original_output_shapes;
    return get_main_module()->get_output_shapes();
}

std::vector<std::string> program::get_output_names() const
{
    auto n = get_output_shapes().size();
    if(m_impl->output_names.size() == n)
        return m_impl->output_names;
    std::vector<std::string> r;
    for(std::size_t i = 0; i < n; i++)
        r.push_back("main:#output_" + std::to_string(i));
    return r;
}

void program::set_output_names(std::vector<std::string> names) { m_impl->output_names = std::move(names); }

std::unordered_map<std::string, shape> program::get_outputs() const
{
    std::unordered_map<std::string, shape> r;
    auto names  = get_output_names();
    auto shapes = get_output_shapes();
    for(std::size_t i = 0; i < names.size(); i++)
        r.emplace(names[i], shapes[i]);
    return r;
}

void program::compile(const target& t, compile_options options)
{
    if(is_compiled())
        MIGRAPHX_THROW("program: already compiled for target '" + m_impl->target_ref.name() +
                       "'; compile a fresh copy for another target");
    m_impl->original_output_shapes = get_main_module()->get_output_shapes();
    m_impl->target_ref             = t;
    m_impl->ctx                    = t.get_context();
    m_impl->options                = options;
    run_passes(*this, t.get_passes(m_impl->ctx, options));
    m_impl->compiled  = true;
    m_impl->lifetimes = std::make_shared<last_use_cache>();
    finalize();
    precompile_optimals(*this);
}

bool program::is_compiled() const { return m_impl->compiled; }
std::string program::target_name() const { return m_impl->target_ref.empty() ? "" : m_impl->target_ref.name(); }
context& program::get_context() const { return m_impl->ctx; }

namespace {

/// Time spent in finalize by op name (MIGRAPHX_TIME_PASSES for a compile, MIGRAPHX_TIME_LOAD
/// for a load: finalize is where a loaded program loads kernels, uploads weights and makes
/// library plans).
struct finalize_times
{
    using clock = std::chrono::steady_clock;
    bool on     = env_enabled("MIGRAPHX_TIME_PASSES") or env_enabled("MIGRAPHX_TIME_LOAD");
    std::map<std::string, std::pair<double, int>> by_op;
    clock::time_point start = clock::now();

    void add(const std::string& op, clock::time_point t0)
    {
        auto& e = by_op[op];
        e.first += std::chrono::duration<double, std::milli>(clock::now() - t0).count();
        e.second++;
    }

    void print() const
    {
        std::vector<std::pair<std::string, std::pair<double, int>>> v(by_op.begin(), by_op.end());
        std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
        std::ostringstream ss;
        ss << "finalize: " << std::chrono::duration<double, std::milli>(clock::now() - start).count() << " ms";
        for(std::size_t i = 0; i < v.size() and i < 8; i++)
            ss << (i == 0 ? "; " : ", ") << v[i].first << " " << v[i].second.first << " ms (" << v[i].second.second
               << ")";
        std::cerr << ss.str() << "\n";
    }
};

} // namespace

void program::finalize()
{
    // Weights equal to those of a program alive in the process (another variant of a dynamic
    // program, the same model compiled or loaded again) share their buffer.
    share_literals(*this);
    finalize_times times;
    for(const auto& m : m_impl->modules)
        for(auto it = m->begin(); it != m->end(); ++it)
        {
            if(it->name().front() == '@')
                continue;
            std::vector<shape> shapes;
            for(auto in : it->inputs())
                shapes.push_back(in->get_shape());
            auto op = it->get_operator();
            auto t0 = finalize_times::clock::now();
            try
            {
                op.finalize(m_impl->ctx, it->get_shape(), shapes);
            }
            catch(const exception&)
            {
                throw;
            }
            catch(const std::exception& e)
            {
                // e.g. oneDNN rejecting a primitive: report it as ours, naming the instruction.
                MIGRAPHX_THROW("finalize: " + it->name() + " in module " + m->name() + " failed: " + e.what());
            }
            if(times.on)
                times.add(it->name(), t0);
            it->set_operator(op);
        }
    auto t0 = finalize_times::clock::now();
    m_impl->ctx.end_finalize();
    if(times.on)
    {
        times.add("(end of finalize)", t0);
        times.print();
    }
    // What a compile or load freed (folded constants, packing buffers) would otherwise sit in the
    // block cache; the runs fill it with what they reuse.
    clear_block_cache();
}

std::vector<argument> program::eval(const parameter_map& params) const
{
    if(auto v = variant_for(*this, params)) // held while it runs
        return v->eval(params_for(*v, params));
    return eval_program(*this, params);
}

std::vector<argument> program::eval(const parameter_map& params, const std::vector<std::string>& output_names) const
{
    auto all   = get_output_names();
    std::vector<std::size_t> picks;
    for(const auto& n : output_names)
    {
        auto it = std::find(all.begin(), all.end(), n);
        if(it == all.end())
        {
            std::string known;
            for(const auto& a : all)
                known += (known.empty() ? "" : ", ") + a;
            MIGRAPHX_THROW("eval: '" + n + "' is not an output of the program; outputs are: " + known);
        }
        picks.push_back(static_cast<std::size_t>(it - all.begin()));
    }
    auto results = eval(params);
    std::vector<argument> r;
    for(auto i : picks)
        r.push_back(results.at(i));
    return r;
}

std::size_t program::get_memory_usage() const
{
    // A planned program says how big its scratch buffer is; otherwise every non-view result
    // is counted, which is what an unplanned run allocates.
    const auto* mm = get_main_module();
    std::size_t total = 0;
    for(auto it = mm->begin(); it != mm->end(); ++it)
    {
        if(it->get_operator().attributes().contains("scratch"))
            return it->get_shape().bytes();
        if(it->name().front() == '@')
            continue;
        std::vector<shape> shapes;
        for(auto in : it->inputs())
            shapes.push_back(in->get_shape());
        if(it->get_operator().output_alias(shapes) < 0)
            total += it->get_shape().bytes();
    }
    return total;
}

bool operator==(const program& a, const program& b)
{
    std::ostringstream sa, sb;
    sa << a;
    sb << b;
    return sa.str() == sb.str();
}

std::ostream& operator<<(std::ostream& os, const program& p)
{
    for(const auto* m : p.get_modules())
    {
        m->print(os);
        os << "\n";
    }
    return os;
}

} // namespace migraphx
