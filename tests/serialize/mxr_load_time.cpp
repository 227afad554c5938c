// Compile a model, save it as .mxr, load it in fresh processes and run it: the outputs must be the
// compiled program's bit for bit, and the times show what loading saves (docs/mxr.md, "Speed").
//
//   mxr_load_time MODEL.onnx WORKDIR [--target cpu] [--loads N] [--max-ratio R]
//
// Prints parse, compile (after parse), parse + compile, save, each load (in a new process of
// this program, timed around migraphx::load alone) and the first run after compiling and after
// loading. Exit codes: 0 pass, 1 outputs differ (or load/compile > R when --max-ratio is given),
// 2 bad usage, 77 skipped (the target is not registered in this build).
//
// The inner mode, run by the outer one: mxr_load_time --load FILE.mxr OUTPUTS.bin
#include <migraphx/generate.hpp>
#include <migraphx/load_save.hpp>
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Runs p once on fixed generated inputs; returns the outputs' bytes and the time of the run.
std::vector<char> run_once(migraphx::program& p, double& seconds)
{
    migraphx::parameter_map params;
    unsigned long seed = 7;
    for(const auto& [name, s] : p.get_inputs())
        params[name] = migraphx::generate_argument(s, seed++);
    auto t0      = clock_type::now();
    auto outputs = p.eval(params);
    seconds      = seconds_since(t0);
    std::vector<char> bytes;
    for(const auto& o : outputs)
    {
        auto c = o.contiguous();
        bytes.insert(bytes.end(), c.data(), c.data() + c.get_shape().bytes());
    }
    return bytes;
}

std::vector<char> read_file(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Inner mode: prints "load S run S same|differ".
int load_and_compare(const std::string& mxr, const std::string& outputs)
{
    auto t0   = clock_type::now();
    auto p    = migraphx::load(mxr);
    auto load = seconds_since(t0);
    double run = 0;
    auto got   = run_once(p, run);
    bool same  = got == read_file(outputs);
    std::cout << "load " << load << " run " << run << " " << (same ? "same" : "differ") << "\n";
    return same ? 0 : 1;
}

std::string quoted(const std::string& s)
{
    std::string r = "'";
    for(char c : s)
        r += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return r + "'";
}

} // namespace

int run(int argc, char** argv);

int main(int argc, char** argv)
{
    try
    {
        return run(argc, argv);
    }
    catch(const std::exception& e)
    {
        std::cerr << "mxr_load_time: " << e.what() << "\n";
        return 1;
    }
}

int run(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if(args.size() == 3 and args[0] == "--load")
        return load_and_compare(args[1], args[2]);
    if(args.size() < 2)
    {
        std::cerr << "usage: mxr_load_time MODEL.onnx WORKDIR [--target cpu] [--loads N] [--max-ratio R]\n";
        return 2;
    }
    std::string model = args[0], dir = args[1], target = "cpu";
    int loads         = 5;
    double max_ratio  = 0;
    for(std::size_t i = 2; i + 1 < args.size(); i += 2)
    {
        if(args[i] == "--target")
            target = args[i + 1];
        else if(args[i] == "--loads")
            loads = std::max(1, std::atoi(args[i + 1].c_str()));
        else if(args[i] == "--max-ratio")
            max_ratio = std::atof(args[i + 1].c_str());
        else
        {
            std::cerr << "unknown option " << args[i] << "\n";
            return 2;
        }
    }
    auto targets = migraphx::get_targets();
    if(std::find(targets.begin(), targets.end(), target) == targets.end())
    {
        std::cout << "target " << target << " is not registered in this build: skipped\n";
        return 77;
    }

    auto t0     = clock_type::now();
    auto p      = migraphx::parse_onnx(model);
    auto parse  = seconds_since(t0);
    t0          = clock_type::now();
    // Host inputs and outputs on every target (a gpu program copies them itself).
    migraphx::compile_options options;
    options.offload_copy = true;
    p.compile(migraphx::get_target(target), options);
    auto compile = seconds_since(t0);
    auto mxr     = dir + "/model.mxr";
    auto outs    = dir + "/outputs.bin";
    t0           = clock_type::now();
    migraphx::save(p, mxr);
    auto save = seconds_since(t0);
    double run = 0;
    auto expected = run_once(p, run);
    std::ofstream(outs, std::ios::binary).write(expected.data(), static_cast<std::streamsize>(expected.size()));

    std::cout << "model " << model << ", target " << target << "\n"
              << "parse " << parse << " s\ncompile " << compile << " s (after parse)\nparse+compile "
              << parse + compile << " s\nsave " << save << " s\nfirst run after compile " << run << " s\n";
    std::vector<double> times;
    bool all_same = true;
    for(int i = 0; i < loads; i++)
    {
        auto cmd = quoted(argv[0]) + " --load " + quoted(mxr) + " " + quoted(outs);
        std::FILE* f = ::popen(cmd.c_str(), "r");
        if(f == nullptr)
        {
            std::cerr << "cannot run " << cmd << "\n";
            return 1;
        }
        std::string line(256, '\0');
        std::string out;
        while(std::fgets(line.data(), static_cast<int>(line.size()), f) != nullptr)
            out += line.c_str();
        int rc = ::pclose(f);
        std::istringstream ss(out);
        std::string w1, w3, verdict;
        double load = 0, first = 0;
        ss >> w1 >> load >> w3 >> first >> verdict;
        if(w1 != "load" or rc == -1)
        {
            std::cerr << "the load process failed: " << out << "\n";
            return 1;
        }
        std::cout << "load " << load << " s (fresh process), first run after load " << first << " s, outputs "
                  << (verdict == "same" ? "bit-identical" : "DIFFER") << "\n";
        all_same = all_same and verdict == "same";
        times.push_back(load);
    }
    std::sort(times.begin(), times.end());
    auto median = times[times.size() / 2];
    std::cout << "load median " << median << " s, min " << times.front() << " s\n"
              << "load / compile " << 100 * median / compile << " %, load / (parse+compile) "
              << 100 * median / (parse + compile) << " %\n";
    if(not all_same)
    {
        std::cout << "FAIL: the loaded program's outputs differ from the compiled one's\n";
        return 1;
    }
    if(max_ratio > 0 and median > max_ratio * compile)
    {
        std::cout << "FAIL: load takes more than " << 100 * max_ratio << " % of compile\n";
        return 1;
    }
    return 0;
}
