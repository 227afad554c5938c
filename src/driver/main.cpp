// migraphx-driver: read, compile, run, time and verify models from the command line
// (spec chapters 8 and 10). docs/driver.md describes every subcommand and flag.
#include "driver/commands.hpp"
#include "driver/validators.hpp"
#include "driver/verify.hpp"
#include <CLI/CLI.hpp>
#include <exception>
#include <functional>
#include <iostream>
#include <string>

namespace migraphx {
namespace driver {
namespace {

struct state
{
    model_options model;
    target_options tgt;
    param_options params;
    output_options out;
    verify_options verify;
    std::size_t n = 100;
    bool enqueue_times = false;
    bool list     = false;
    std::string name;
    std::string mxr;
};

// One line, whatever the message holds.
std::string one_line(std::string msg)
{
    for(auto& c : msg)
        if(c == '\n' or c == '\r')
            c = ' ';
    while(not msg.empty() and msg.back() == ' ')
        msg.pop_back();
    return msg;
}

void add_output_options(CLI::App& app, output_options& o)
{
    app.add_option("--output,-o", o.output, "Write the program to FILE instead of stdout");
    app.add_flag("--binary", o.binary, "Write a .mxr file (needs --output)");
}

int run_cli(int argc, char** argv)
{
    CLI::App app{"migraphx-driver: read, compile, run, time and verify models", "migraphx-driver"};
    app.require_subcommand(0, 1);
    state s;
    bool show_version = false;
    app.add_flag("--version", show_version, "Print the versions and exit");

    std::vector<std::pair<CLI::App*, std::function<int()>>> commands;
    auto add = [&](const std::string& name, const std::string& help, std::function<int()> f) {
        auto* sub = app.add_subcommand(name, help);
        commands.emplace_back(sub, std::move(f));
        return sub;
    };

    auto* read = add("read", "Print the parsed program", [&] {
        finish_options(s.model);
        return read_command(s.model, s.out);
    });
    add_model_options(*read, s.model);
    add_output_options(*read, s.out);

    auto* params = add("params", "Print the model's inputs and outputs", [&] {
        finish_options(s.model);
        return params_command(s.model);
    });
    add_model_options(*params, s.model);

    auto* compile = add("compile", "Compile and print (or save with --binary) the program", [&] {
        finish_options(s.model);
        return compile_command(s.model, s.tgt, s.out);
    });
    add_model_options(*compile, s.model);
    add_target_options(*compile, s.tgt);
    add_output_options(*compile, s.out);

    auto* run = add("run", "Compile, run once and print the outputs", [&] {
        finish_options(s.model, &s.params);
        return run_command(s.model, s.tgt, s.params);
    });
    auto* perf = add("perf", "Compile and print the performance report", [&] {
        finish_options(s.model, &s.params);
        return perf_command(s.model, s.tgt, s.params, s.n, s.enqueue_times);
    });
    auto* verify = add("verify", "Compare the target's results with ref's", [&] {
        finish_options(s.model, &s.params);
        return verify_model(s.model, s.tgt, s.params, s.verify);
    });
    for(auto* sub : {run, perf, verify})
    {
        add_model_options(*sub, s.model);
        add_target_options(*sub, s.tgt);
        add_param_options(*sub, s.params);
    }
    perf->add_option("-n", s.n, "Number of timed runs (default 100)")->check(at_least(1, "a positive integer"));
    perf->add_flag("--enqueue-times", s.enqueue_times,
                   "Also report the host's time to issue each instruction (no wait after it), summed per op: "
                   "where a launch-bound run spends its time");
    verify->add_option("--rtol", s.verify.rtol, "Relative tolerance (default 1e-3; 1e-2 --fp16; 1e-1 --int8)")
        ->check(at_least(0, "a non-negative number"));
    verify->add_option("--atol", s.verify.atol, "Absolute tolerance (default as --rtol)")
        ->check(at_least(0, "a non-negative number"));
    verify->add_option("--rms-tol", s.verify.rms_tol,
                       "Pass an output when sqrt(sum (x - ref)^2) / (sqrt(n) * max |x|, |ref|) is at most this "
                       "(MIGraphX's criterion; instead of the per-element test)")
        ->check(CLI::Range(0.0, 1.0e9));
    verify->add_flag("--per-instruction", s.verify.per_instruction, "Find the first instruction that departs from ref");

    auto* version = add("version", "Print the MIGraphX, ONNX opset and MXR versions", [&] {
        return version_command(s.mxr);
    });
    version->add_option("--migraphx", s.mxr, "Show the version of a .mxr file");

    auto* onnx = add("onnx", "ONNX front end: onnx -l lists the supported operators", [&] {
        return onnx_command(s.list);
    });
    onnx->add_flag("-l,--list", s.list, "List the supported ONNX operators");

    auto* op = add("op", "Operators: op -l lists them, op NAME shows one", [&] {
        return op_command(s.list, s.name);
    });
    op->add_flag("-l,--list", s.list, "List the registered operators");
    op->add_option("name", s.name, "Operator to show with its default attributes");

    try
    {
        app.parse(argc, argv);
    }
    catch(const CLI::Success& e)
    {
        return app.exit(e); // --help
    }
    catch(const CLI::ParseError& e)
    {
        std::cerr << "migraphx-driver: error: " << one_line(e.what()) << " (see --help)" << std::endl;
        return 2;
    }
    if(show_version)
        return version_command("");
    for(auto& [sub, f] : commands)
        if(sub->parsed())
            return f();
    std::cout << app.help() << std::flush;
    return 2;
}

} // namespace
} // namespace driver
} // namespace migraphx

int main(int argc, char** argv)
{
    try
    {
        return migraphx::driver::run_cli(argc, argv);
    }
    catch(const std::exception& e)
    {
        std::cout << std::flush;
        std::cerr << "migraphx-driver: error: " << migraphx::driver::one_line(e.what()) << std::endl;
    }
    catch(...)
    {
        std::cout << std::flush;
        std::cerr << "migraphx-driver: error: unknown exception" << std::endl;
    }
    return 1;
}
