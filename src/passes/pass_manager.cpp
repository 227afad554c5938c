#include "passes/pass_manager.hpp"
#include <migraphx/program.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>
#include "ir/env.hpp"

namespace migraphx {

namespace {

thread_local program* running_program = nullptr;

std::set<std::string> disabled_passes()
{
    std::set<std::string> r;
    std::stringstream ss(env_string("MIGRAPHX_DISABLE_PASSES"));
    std::string item;
    while(std::getline(ss, item, ','))
        if(not item.empty())
            r.insert(item);
    return r;
}

bool validate_after_each()
{
#ifndef NDEBUG
    return true;
#else
    return env_enabled("MIGRAPHX_VALIDATE_PASSES");
#endif
}

void run_one(module& m, const pass& p, bool trace, bool time, bool validate)
{
    auto start = std::chrono::steady_clock::now();
    p.apply(m);
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if(time)
        std::cerr << "Pass " << p.name() << " on " << m.name() << ": " << ms << "ms\n";
    if(trace)
        std::cout << "Pass: " << p.name() << "\n" << m << "\n";
    if(validate)
    {
        try
        {
            m.validate();
        }
        catch(const exception& e)
        {
            MIGRAPHX_THROW("pass " + p.name() + " left an invalid module: " + e.what());
        }
    }
}

} // namespace

program* current_program() { return running_program; }

void run_passes(module& m, const std::vector<pass>& passes)
{
    auto disabled = disabled_passes();
    bool trace    = env_enabled("MIGRAPHX_TRACE_COMPILE");
    bool time     = env_enabled("MIGRAPHX_TIME_PASSES");
    bool validate = validate_after_each();
    for(const auto& p : passes)
        if(not disabled.count(p.name()))
            run_one(m, p, trace, time, validate);
}

void run_passes(program& prog, const std::vector<pass>& passes)
{
    auto disabled = disabled_passes();
    bool trace    = env_enabled("MIGRAPHX_TRACE_COMPILE");
    bool time     = env_enabled("MIGRAPHX_TIME_PASSES");
    bool validate = validate_after_each();
    struct restore
    {
        program* saved;
        ~restore() { running_program = saved; }
    } guard{running_program};
    running_program = &prog;
    for(const auto& p : passes)
    {
        if(disabled.count(p.name()))
            continue;
        // Sub-modules first, so a pass over main sees its sub-modules already rewritten.
        auto mods = prog.get_modules();
        for(auto it = mods.rbegin(); it != mods.rend(); ++it)
            run_one(*prog.get_module((*it)->name()), p, trace, time, validate);
    }
}

} // namespace migraphx
