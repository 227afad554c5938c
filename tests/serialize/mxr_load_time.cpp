// Compile a model, save it as .mxr, load it in fresh processes and run it: the outputs must be the
// compiled program's bit for bit, and the times show what loading saves (docs/mxr.md, "Speed").
//
//   mxr_load_time MODEL.onnx WORKDIR [--target cpu] [--loads N] [--max-ratio R] [--fp16 1]
//
// Prints parse, compile (after parse), parse + compile, save, each load (in a new process of
// this program, timed around migraphx::load alone) and the first run after compiling and after
// loading (--fp16 1: quantize_fp16 first, counted in the compile). Exit codes: 0 pass, 1 outputs differ (or load/compile > R when --max-ratio is given),
// 2 bad usage, 77 skipped (the target is not registered in this build).
//
// gpu: every process first starts the CUDA context (not counted: it comes before any device
// work, compile or load alike), and the times are given two ways, because the process's first use
// of cuDNN, cuBLASLt and NVRTC (loading their libraries and kernels, ~0.1 s) also comes once
// before either:
// - "cold": the compile, and a load in a fresh process, each paying that first use;
// - "libraries started": the compiling process first compiles and runs a tiny conv + gemm(+bias)
//   program (WORKDIR/warmup.mxr is its save), and a fresh load process first loads and runs
//   that file; then the model is compiled or loaded. --max-ratio applies to these.
// The compile gets an empty kernel cache (WORKDIR/kernels-compile, as MIGRAPHX_GPU_CACHE_DIR) so
// that it compiles every kernel; the loads get another (WORKDIR/kernels-load), which must stay
// empty: a load that compiled a kernel with NVRTC would leave its cubin there (a failure). Each
// load process runs the program twice (the second run may replay a recording), and both runs
// must give the compiled program's bits; it then loads the file again in the same process.
//
// The inner mode, run by the outer one: mxr_load_time --load FILE.mxr OUTPUTS.bin TARGET [WARMUP.mxr]
#include <migraphx/generate.hpp>
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/quantization.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
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

std::string shell_quoted(const std::string& s)
{
    std::string r = "'";
    for(char c : s)
        r += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return r + "'";
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

// Starts the target's device (gpu: the CUDA context, which any process pays once before its first
// device work, compile or load alike) and returns the seconds it took; 0 for the host targets.
double start_device(const std::string& target)
{
    if(target != "gpu")
        return 0;
    auto t0 = clock_type::now();
    migraphx::get_target(target).allocate(migraphx::shape{migraphx::shape::float_type, {1}});
    return seconds_since(t0);
}

// Inner mode: prints "start S warm S load S run S same|differ run2 S load2 S" (warm 0 without a
// warm-up file).
int load_and_compare(const std::string& mxr, const std::string& outputs, const std::string& target,
                     const std::string& warmup)
{
    auto start = start_device(target);
    double warm = 0, ignored = 0;
    if(not warmup.empty())
    {
        auto t0 = clock_type::now();
        auto w  = migraphx::load(warmup);
        run_once(w, ignored);
        warm = seconds_since(t0);
    }
    auto t0   = clock_type::now();
    auto p    = migraphx::load(mxr);
    auto load = seconds_since(t0);
    double run = 0, run2 = 0;
    auto want  = read_file(outputs);
    auto got   = run_once(p, run);
    auto again = run_once(p, run2);
    bool same  = got == want and again == want;
    t0         = clock_type::now();
    auto q     = migraphx::load(mxr);
    auto load2 = seconds_since(t0);
    std::cout << "start " << start << " warm " << warm << " load " << load << " run " << run << " "
              << (same ? "same" : "differ") << " run2 " << run2 << " load2 " << load2 << "\n";
    return same ? 0 : 1;
}

/// A conv + bias + relu, pooling and gemm + bias program: compiling and running it makes the
/// process's first use of the target's libraries (on gpu the gemm takes cuBLASLt's bias epilogue,
/// as a classifier does: cuBLASLt's first call of an fp32 epilogue kernel took 79-110 ms on an H200,
/// a cost of the process, not of the model, which a warm-up without it left in the model's load).
migraphx::program warmup_program()
{
    using migraphx::make_op;
    using migraphx::shape;
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {1, 3, 16, 16}});
    auto w  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {8, 3, 3, 3}}, 1));
    auto b  = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {8}}, 2));
    auto c  = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), x, w);
    auto bb = m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", c->get_shape().lens()}}), b);
    auto r  = m->add_instruction(make_op("relu"), m->add_instruction(make_op("add"), c, bb));
    auto pl = m->add_instruction(
        make_op("pooling", {{"mode", "max"}, {"lengths", {2, 2}}, {"stride", {2, 2}}, {"padding", {0, 0}}}), r);
    auto f  = m->add_instruction(make_op("flatten", {{"axis", 1}}), pl);
    auto fc = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {512, 10}}, 3));
    auto fb = m->add_literal(migraphx::generate_literal(shape{shape::float_type, {10}}, 4));
    auto d  = m->add_instruction(make_op("dot"), f, fc);
    auto db = m->add_instruction(make_op("multibroadcast", {{"out_lens", d->get_shape().lens()}}), fb);
    m->add_return({m->add_instruction(make_op("add"), d, db)});
    return p;
}

struct load_times
{
    double start = 0, warm = 0, load = 0, run = 0, run2 = 0, load2 = 0;
    bool same = false;
};

// Runs the inner mode in a new process.
bool load_in_new_process(const std::string& self,
                         const std::string& mxr,
                         const std::string& outs,
                         const std::string& target,
                         const std::string& warmup,
                         load_times& t)
{
    auto cmd = shell_quoted(self) + " --load " + shell_quoted(mxr) + " " + shell_quoted(outs) + " " +
               shell_quoted(target) + (warmup.empty() ? "" : " " + shell_quoted(warmup));
    std::FILE* f = ::popen(cmd.c_str(), "r");
    if(f == nullptr)
    {
        std::cerr << "cannot run " << cmd << "\n";
        return false;
    }
    std::string line(256, '\0');
    std::string out;
    while(std::fgets(line.data(), static_cast<int>(line.size()), f) != nullptr)
        out += line.c_str();
    int rc = ::pclose(f);
    std::istringstream ss(out);
    std::string w[7], verdict;
    ss >> w[0] >> t.start >> w[1] >> t.warm >> w[2] >> t.load >> w[3] >> t.run >> verdict >> w[4] >> t.run2 >> w[5] >>
        t.load2;
    if(w[0] != "start" or w[1] != "warm" or w[2] != "load" or w[5] != "load2" or rc == -1)
    {
        std::cerr << "the load process failed: " << out << "\n";
        return false;
    }
    t.same = verdict == "same";
    return true;
}

double median_of(std::vector<double> xs)
{
    std::sort(xs.begin(), xs.end());
    return xs.empty() ? 0 : xs[xs.size() / 2];
}

// Kernels (.cubin files) in a cache folder, recursively (0 if it does not exist); the tuning
// cache's entries beside them are not kernels.
std::size_t count_files(const std::string& dir)
{
    std::error_code ec;
    std::size_t n = 0;
    for(auto it = std::filesystem::recursive_directory_iterator(dir, ec);
        not ec and it != std::filesystem::recursive_directory_iterator();
        it.increment(ec))
        n += it->is_regular_file() and it->path().extension() == ".cubin" ? 1 : 0;
    return n;
}

// An empty folder for MIGRAPHX_GPU_CACHE_DIR.
std::string fresh_dir(const std::string& path)
{
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    std::filesystem::create_directories(path, ec);
    return path;
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
    if((args.size() == 4 or args.size() == 5) and args[0] == "--load")
        return load_and_compare(args[1], args[2], args[3], args.size() == 5 ? args[4] : "");
    if(args.size() < 2)
    {
        std::cerr << "usage: mxr_load_time MODEL.onnx WORKDIR [--target cpu] [--loads N] [--max-ratio R] [--fp16 1]\n";
        return 2;
    }
    std::string model = args[0], dir = args[1], target = "cpu";
    int loads         = 5;
    double max_ratio  = 0;
    bool fp16         = false;
    for(std::size_t i = 2; i + 1 < args.size(); i += 2)
    {
        if(args[i] == "--target")
            target = args[i + 1];
        else if(args[i] == "--loads")
            loads = std::max(1, std::atoi(args[i + 1].c_str()));
        else if(args[i] == "--max-ratio")
            max_ratio = std::atof(args[i + 1].c_str());
        else if(args[i] == "--fp16")
            fp16 = args[i + 1] == "1";
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

    bool gpu = target == "gpu";
    // Neither compile nor load is charged with starting the device: each process does it first.
    auto start = start_device(target);
    double warm = 0, ignored = 0;
    std::string warmup;
    if(gpu)
    {
        ::setenv("MIGRAPHX_GPU_CACHE_DIR", fresh_dir(dir + "/kernels-warmup").c_str(), 1);
        auto t0 = clock_type::now();
        auto w  = warmup_program();
        migraphx::compile_options wo;
        wo.offload_copy = true;
        w.compile(migraphx::get_target(target), wo);
        run_once(w, ignored);
        warm   = seconds_since(t0);
        warmup = dir + "/warmup.mxr";
        migraphx::save(w, warmup);
        ::setenv("MIGRAPHX_GPU_CACHE_DIR", fresh_dir(dir + "/kernels-compile").c_str(), 1);
    }
    auto t0    = clock_type::now();
    auto p     = migraphx::parse_onnx(model);
    auto parse = seconds_since(t0);
    t0         = clock_type::now();
    // Host inputs and outputs on every target (a gpu program copies them itself).
    migraphx::compile_options options;
    options.offload_copy = true;
    if(fp16)
        migraphx::quantize_fp16(p);
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

    std::cout << "model " << model << ", target " << target << (fp16 ? ", fp16" : "") << "\n";
    if(gpu)
        std::cout << "device start (CUDA context, before anything below) " << start << " s\n"
                  << "libraries started (first cuDNN, cuBLASLt, NVRTC use: a tiny program compiled and run) " << warm
                  << " s\n";
    std::cout << "parse " << parse << " s\ncompile " << compile << " s (after parse"
              << (gpu ? ", libraries started" : "") << ")\nparse+compile " << parse + compile << " s\nsave " << save
              << " s (" << std::filesystem::file_size(mxr) << " bytes)\nfirst run after compile " << run << " s\n";
    std::string load_cache;
    if(gpu)
    {
        std::cout << "kernels compiled with NVRTC " << count_files(dir + "/kernels-compile") << "\n";
        load_cache = fresh_dir(dir + "/kernels-load");
        ::setenv("MIGRAPHX_GPU_CACHE_DIR", load_cache.c_str(), 1);
    }
    // gpu: the cold loads, then as many after the libraries' start; other targets: cold loads only.
    std::vector<double> cold, started;
    bool all_same = true;
    for(int i = 0; i < (gpu ? 2 * loads : loads); i++)
    {
        bool is_cold = i < loads;
        load_times t;
        if(not load_in_new_process(argv[0], mxr, outs, target, is_cold ? "" : warmup, t))
            return 1;
        std::cout << "load " << t.load << " s (fresh process";
        if(gpu)
            std::cout << (is_cold ? ", cold" : ", libraries started in " + std::to_string(t.warm) + " s")
                      << ", after a device start of " << t.start << " s";
        std::cout << "), first run after load " << t.run << " s, second run " << t.run2 << " s, outputs "
                  << (t.same ? "bit-identical" : "DIFFER") << "; load again in that process " << t.load2 << " s\n";
        all_same = all_same and t.same;
        (is_cold ? cold : started).push_back(t.load);
    }
    auto median = median_of(cold);
    std::cout << "load median " << median << " s, min " << *std::min_element(cold.begin(), cold.end()) << " s\n";
    double ratio = median / compile;
    if(gpu)
    {
        auto m2 = median_of(started);
        std::cout << "cold: load / (library start + compile) " << 100 * median / (warm + compile) << " %\n"
                  << "libraries started: load median " << m2 << " s, load / compile " << 100 * m2 / compile << " %\n";
        ratio = m2 / compile;
    }
    else
        std::cout << "load / compile " << 100 * ratio << " %, load / (parse+compile) "
                  << 100 * median / (parse + compile) << " %\n";
    if(not all_same)
    {
        std::cout << "FAIL: the loaded program's outputs differ from the compiled one's\n";
        return 1;
    }
    if(gpu and count_files(load_cache) != 0)
    {
        std::cout << "FAIL: loading compiled " << count_files(load_cache) << " kernels with NVRTC\n";
        return 1;
    }
    if(max_ratio > 0 and ratio > max_ratio)
    {
        std::cout << "FAIL: load takes more than " << 100 * max_ratio << " % of compile\n";
        return 1;
    }
    return 0;
}
