#include "ir/eval.hpp"
#include <migraphx/errors.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <set>
#include <type_traits>
#include <sstream>
#include <unordered_map>
#include "ir/actual_sizes.hpp"
#include "ir/builtin.hpp"
#include "ir/env.hpp"
#include "ir/last_use.hpp"
#include "ir/program_impl.hpp"
#include "ir/replay.hpp"
#include "ir/shape_text.hpp"

namespace migraphx {

namespace {

/// Makes a given input fit the parameter's declared shape, or says exactly why it does not.
argument check_param(const std::string& name, const shape& want, const argument& given)
{
    const auto& got = given.get_shape();
    if(got.type() != want.type())
        MIGRAPHX_THROW("eval: parameter '" + name + "' has type " + got.type_string() + " but the program expects " +
                       want.type_string() + " (" + shape_text(want) + ")");
    if(want.dynamic())
    {
        const auto& dd = want.dyn_dims();
        bool fits      = got.ndim() == dd.size();
        for(std::size_t i = 0; fits and i < dd.size(); i++)
            fits = dd[i].within(got.lens()[i]);
        if(not fits)
            MIGRAPHX_THROW("eval: parameter '" + name + "' has shape " + shape_text(got) +
                           " which is outside the program's range " + shape_text(want));
        return got.standard() ? given : given.contiguous();
    }
    if(got.lens() != want.lens())
        MIGRAPHX_THROW("eval: parameter '" + name + "' has shape " + shape_text(got) + " but the program expects " +
                       shape_text(want));
    if(given.data() == nullptr and got.elements() > 0)
        MIGRAPHX_THROW("eval: parameter '" + name + "' has no data");
    if(got.strides() != want.strides())
    {
        // The program was built for the declared layout; copy into it.
        if(want.standard())
            return given.contiguous();
        argument r{want};
        auto std_copy = given.contiguous();
        auto ts       = want.type_size();
        for(std::size_t i = 0; i < want.elements(); i++)
            std::copy_n(std_copy.data() + i * ts, ts, r.data() + want.index(i) * ts);
        return r;
    }
    return given;
}

// MIGRAPHX_TRACE_EVAL, as MIGraphX prints it (docs/env-vars.md): 1 names each instruction and
// its time, 2 adds a summary of its output, 3 the whole output.
struct tracer
{
    long level      = 0;
    const target* t = nullptr;

    // One element as MIGraphX prints it: 8-bit integers as numbers, not characters.
    template <class T>
    static void print_element(std::ostream& os, const T& x)
    {
        if constexpr(sizeof(T) == 1 and std::is_integral<T>{})
            os << static_cast<int>(x);
        else
            os << x;
    }

    static void classify(const argument& a, std::set<std::string>& kinds)
    {
        if(a.get_shape().type() == shape::tuple_type)
        {
            for(const auto& sub : a.get_sub_objects())
                classify(sub, kinds);
            return;
        }
        if(a.empty())
            return;
        a.visit([&](auto v) {
            for(std::size_t i = 0; i < v.size(); i++)
            {
                switch(std::fpclassify(type_cast<double>(v[i])))
                {
                case FP_NAN: kinds.insert("nan"); break;
                case FP_INFINITE: kinds.insert("inf"); break;
                case FP_ZERO: kinds.insert("zero"); break;
                case FP_SUBNORMAL: kinds.insert("subnormal"); break;
                default: kinds.insert("normal");
                }
            }
        });
    }

    // The first and last five values (all of them up to ten); a tuple as {..}{..}.
    static void preview(std::ostream& os, const argument& a)
    {
        if(a.get_shape().type() == shape::tuple_type)
        {
            for(const auto& sub : a.get_sub_objects())
            {
                os << "{";
                preview(os, sub);
                os << "}";
            }
            return;
        }
        if(a.empty())
            return;
        a.visit([&](auto v) {
            auto range = [&](std::size_t b, std::size_t e) {
                for(std::size_t i = b; i < e; i++)
                {
                    if(i != b)
                        os << ", ";
                    print_element(os, v[i]);
                }
            };
            if(v.size() <= 10)
                range(0, v.size());
            else
            {
                range(0, 5);
                os << ", ..., ";
                range(v.size() - 5, v.size());
            }
        });
    }

    void output(std::ostream& os, const argument& result) const
    {
        argument a = result;
        if(t != nullptr and a.get_shape().type() != shape::tuple_type)
        {
            try
            {
                a = t->copy_from(result);
            }
            catch(const exception&)
            {
                a = result; // computed on the host: nothing to copy
            }
        }
        std::set<std::string> kinds;
        classify(a, kinds);
        os << "Output has ";
        bool first = true;
        // A fixed order, so that traces diff cleanly.
        for(const char* k : {"normal", "subnormal", "zero", "inf", "nan"})
            if(kinds.count(k) != 0)
            {
                os << (first ? "" : ", ") << k;
                first = false;
            }
        os << "\n";
        os << "Output: ";
        if(level > 2)
            os << a;
        else
            preview(os, a);
        os << "\n";
    }
};

/// Thrown where a module no longer matches the table its run goes by (changed after compile):
/// eval_program then makes the tables again and runs once more.
struct stale_plan
{
};

/// The results of one module's run, by position, and where to find the values its sub-modules
/// read from the modules around them.
struct eval_scope
{
    const last_use_table* table = nullptr;
    const std::vector<argument>* slots = nullptr;
    const eval_scope* outer = nullptr;

    const argument* find(const instruction* x) const
    {
        for(const auto* s = this; s != nullptr; s = s->outer)
            if(auto it = s->table->position.find(x); it != s->table->position.end())
                return &(*s->slots)[it->second];
        return nullptr;
    }
};

struct evaluator
{
    const program& prog;
    context& ctx;
    tracer trace;
    replay_cache* replays = nullptr; // set where recorded runs may be replayed
    last_use_cache* lifetime_cache = nullptr; // a compiled program's, else each run finds them
    std::shared_ptr<const last_use_table> main_plan{}; // the main module's, where the caller has it

    std::vector<argument> run(const module& m, const parameter_map& params, const eval_scope* outer)
    {
        // Where each result is dropped (after its last reader, so that its memory is reused while
        // warm) and where each input is: results live in a vector by position.
        auto held = outer == nullptr and main_plan != nullptr ? main_plan
                    : lifetime_cache != nullptr                ? lifetime_cache->of(m)
                                                               : std::make_shared<const last_use_table>(make_last_use_table(m));
        const auto& plan = *held;
        if(plan.edits != m.edits() or plan.order.size() != m.size())
            throw stale_plan{};
        std::vector<argument> slots(plan.order.size());
        eval_scope scope{&plan, &slots, outer};
        std::unordered_map<const instruction*, std::string> names;
        if(trace.level > 0)
            names = m.instruction_names();
        auto not_computed = [&](instruction_ref x) -> const argument& {
            MIGRAPHX_THROW("eval: instruction " + x->name() + " used before it was computed");
        };
        auto lookup = [&](instruction_ref x) -> const argument& {
            const auto* a = scope.find(&*x);
            return a != nullptr ? *a : not_computed(x);
        };
        std::vector<argument> args; // reused: no allocation per instruction
        auto compute_op = [&](instruction_ref ins, std::size_t at) -> argument {
            args.clear();
            const auto& given = ins->inputs();
            const auto first  = plan.input_begin[at];
            if(given.size() != plan.input_begin[at + 1] - first)
                throw stale_plan{};
            for(std::size_t i = 0; i < given.size(); i++)
            {
                if(&*given[i] != plan.input_list[first + i])
                    throw stale_plan{};
                auto ip = plan.input_pos[first + i];
                if(ip == last_use_table::outside)
                    args.push_back(lookup(given[i]));
                else if(ip < at)
                    args.push_back(slots[ip]);
                else
                    not_computed(given[i]);
            }
            try
            {
                if(not ins->module_inputs().empty())
                {
                    run_module_fn fn = [&](module_ref sub, const parameter_map& p) { return run(*sub, p, &scope); };
                    return ins->get_operator().compute(ins->get_shape(), args, ins->module_inputs(), fn);
                }
                // The common path: every input as declared (no allocation per op per run).
                return compute_sized(ins, args, &ctx);
            }
            catch(const exception&)
            {
                throw;
            }
            catch(const std::exception& e)
            {
                // A library's own error (oneDNN, CUDA, std::bad_alloc) becomes ours, naming the op.
                MIGRAPHX_THROW("eval: " + ins->name() + " in module " + m.name() + " failed: " + e.what());
            }
        };
        // Replay (CUDA graphs): the main module's recordable runs, unless each instruction is traced.
        const std::vector<replay_segment>* segments = nullptr;
        if(replays != nullptr and outer == nullptr and trace.level == 0)
            segments = &replays->segments(m, ctx);
        std::size_t next_segment = 0;
        std::size_t pos          = 0;
        auto release             = [&](std::size_t p) {
            for(auto r : plan.release[p])
                slots[r] = argument{};
        };
        for(auto ins = m.begin(); ins != m.end(); ++ins, ++pos)
        {
            if(segments != nullptr and next_segment < segments->size() and ins == (*segments)[next_segment].begin)
            {
                const auto& seg = (*segments)[next_segment++];
                auto step       = [&](instruction_ref i) {
                    auto at   = plan.position.at(&*i);
                    auto r    = compute_op(i, at);
                    slots[at] = r;
                    return r;
                };
                auto done = replays->run(seg, ctx, lookup, step);
                for(auto& [i, a] : done.results)
                    slots[plan.position.at(i)] = std::move(a);
                auto first = pos;
                for(; std::next(ins) != seg.end; ++ins, ++pos)
                    if(not done.replayed)
                        release(pos);
                if(not done.replayed)
                    release(pos);
                else // only its outputs came back: drop the inputs nothing reads after it
                    for(auto x : seg.inputs)
                        if(auto it = plan.last.find(&*x); it != plan.last.end() and it->second >= first and
                                                          it->second <= pos)
                            slots[plan.position.at(&*x)] = argument{};
                continue;
            }
            if(plan.order[pos] != &*ins)
                throw stale_plan{};
            const auto& n = ins->name();
            bool traced   = trace.level > 0 and n != "@return";
            if(traced)
            {
                ctx.finish(); // the time below is this instruction's alone
                std::cout << "Run instruction: ";
                m.print_instruction(std::cout, ins, names);
                std::cout << std::endl;
            }
            auto t0 = traced ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
            argument out;
            if(n == "@literal")
                out = ins->get_literal().get_argument();
            else if(n == "@param")
            {
                const auto& pname = ins->get_operator().any_cast<builtin::param>()->parameter;
                auto it           = params.find(pname);
                if(it == params.end())
                    MIGRAPHX_THROW("eval: parameter '" + pname + "' of module " + m.name() + " was not given");
                out = it->second;
            }
            else if(n == "@return")
            {
                std::vector<argument> r;
                for(auto in : ins->inputs())
                    r.push_back(lookup(in));
                return r;
            }
            else
                out = compute_op(ins, pos);
            if(traced)
            {
                // As MIGraphX: the time until compute returned, then until the target finished.
                auto t1 = std::chrono::steady_clock::now();
                ctx.finish();
                auto t2 = std::chrono::steady_clock::now();
                std::cout << "Time: " << std::chrono::duration<double, std::milli>(t1 - t0).count() << "ms, "
                          << std::chrono::duration<double, std::milli>(t2 - t0).count() << "ms" << std::endl;
                // Allocations and the views planned in them (load) hold nothing written yet.
                bool unwritten = n == "load" or n.find("allocate") != std::string::npos;
                if(trace.level > 1 and n.front() != '@' and not unwritten and not out.empty())
                    trace.output(std::cout, out);
                std::cout << std::flush;
            }
            slots[pos] = std::move(out);
            release(pos);
        }
        // A module without @return yields its last result.
        if(m.empty())
            return {};
        return {lookup(std::prev(m.end()))};
    }
};

} // namespace

namespace {

std::vector<argument> eval_once(const program& p, const parameter_map& params)
{
    auto& impl      = p.get_impl();
    const auto* mm   = p.get_main_module();
    parameter_map checked;
    // The main module's table (a compiled program's, kept): its parameters, and the run's plan.
    auto main_plan = impl.lifetimes != nullptr ? impl.lifetimes->of(*mm)
                                               : std::make_shared<const last_use_table>(make_last_use_table(*mm));
    if(main_plan->edits != mm->edits())
        throw stale_plan{}; // before its parameters are asked for: one may have gone since
    const auto& declared = main_plan->parameters;
    for(const auto& [name, s] : declared)
    {
        auto it = params.find(name);
        if(it == params.end())
        {
            std::string expected;
            for(const auto& pn : mm->get_parameter_names())
                expected += (expected.empty() ? "" : ", ") + pn;
            MIGRAPHX_THROW("eval: parameter '" + name + "' is missing; the program takes: " + expected);
        }
        checked.emplace(name, check_param(name, s, it->second));
    }
    context fallback;
    context& ctx = impl.ctx.empty() ? fallback : impl.ctx;
    auto turn    = ctx.begin_run(); // runs of a gpu program from several threads take turns
    evaluator e{p, ctx, tracer{}};
    e.lifetime_cache = impl.lifetimes.get();
    e.main_plan      = main_plan;
    e.trace.level = env_level("MIGRAPHX_TRACE_EVAL");
    if(not impl.target_ref.empty())
        e.trace.t = &impl.target_ref;
    if(impl.compiled and impl.options.cuda_graph and not env_enabled("MIGRAPHX_DISABLE_CUDA_GRAPH"))
    {
        // Made on the first run; runs on several threads (cpu) may all get here first.
        auto replays = std::atomic_load(&impl.replays);
        if(replays == nullptr)
        {
            auto fresh = std::make_shared<replay_cache>();
            replays    = std::atomic_compare_exchange_strong(&impl.replays, &replays, fresh) ? fresh : replays;
        }
        e.replays = replays.get();
    }
    auto results = e.run(*mm, checked, nullptr);
    ctx.finish();
    return results;
}

} // namespace

std::vector<argument> eval_program(const program& p, const parameter_map& params)
{
    try
    {
        return eval_once(p, params);
    }
    catch(const stale_plan&)
    {
        // A compiled module changed since its table was made: make them all again.
        auto& impl = p.get_impl();
        if(impl.lifetimes == nullptr)
            MIGRAPHX_THROW("eval: a module changed while it ran");
        impl.lifetimes->clear();
        p.get_context().finish();
    }
    try
    {
        return eval_once(p, params);
    }
    catch(const stale_plan&)
    {
        MIGRAPHX_THROW("eval: the program's modules changed while it ran");
    }
}

} // namespace migraphx
