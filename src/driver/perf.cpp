#include "driver/perf.hpp"
#include "driver/step_eval.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/module.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <ostream>
#include <unordered_map>

namespace migraphx {
namespace driver {

namespace {

template <class F>
double time_ms(F f)
{
    auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Mean of the middle half: one slow run (a page fault, a context switch) does not move it.
double middle_mean(std::vector<double> v)
{
    if(v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    auto q = v.size() / 4;
    return std::accumulate(v.begin() + q, v.end() - q, 0.0) / static_cast<double>(v.size() - 2 * q);
}

double median(std::vector<double> v)
{
    if(v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    auto m = v.size() / 2;
    return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Instructions are grouped by op, and compiled kernels by their symbol, as MIGraphX does.
std::string perf_group(const instruction& ins)
{
    auto v = ins.get_operator().to_value();
    if(const auto* sym = v.find("symbol_name"); sym != nullptr and sym->is_string())
        return ins.name() + "::" + sym->get_string();
    return ins.name();
}

double percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

/// Each instruction's middle-half mean of its timed runs, their sum, and per op (perf_group) the
/// summed means and how many instructions (@return left out).
struct instruction_means
{
    std::unordered_map<const instruction*, double> avg;
    double total = 0;
    std::map<std::string, std::pair<double, std::size_t>> groups;
};

instruction_means per_instruction_means(const module& mm,
                                        std::unordered_map<const instruction*, std::vector<double>>& times)
{
    instruction_means r;
    for(auto ins = mm.begin(); ins != mm.end(); ++ins)
    {
        if(ins->name() == "@return")
            continue;
        double a      = middle_mean(times[&*ins]);
        r.avg[&*ins] = a;
        r.total += a;
        auto& g = r.groups[perf_group(*ins)];
        g.first += a;
        g.second++;
    }
    return r;
}

/// Per-op sums (time, count), slowest first: `name: <total>ms / <count> = <each>ms, <pct>%`.
void print_groups(std::ostream& os, const std::map<std::string, std::pair<double, std::size_t>>& groups, double total)
{
    std::vector<std::pair<std::string, std::pair<double, std::size_t>>> sorted(groups.begin(), groups.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return a.second.first > b.second.first;
    });
    for(const auto& [name, g] : sorted)
        os << name << ": " << g.first << "ms / " << g.second << " = " << g.first / static_cast<double>(g.second)
           << "ms, " << percent(g.first, total) << "%\n";
}

} // namespace

void perf_report(std::ostream& os,
                 const program& p,
                 const parameter_map& params,
                 std::size_t n,
                 std::size_t batch,
                 bool graph_replay)
{
    context& ctx = p.get_context();
    p.eval(params); // warm-up: first-touch allocations and lazy initialisation stay out of the figures

    std::vector<double> totals;
    for(std::size_t i = 0; i < n; i++)
        totals.push_back(time_ms([&] { p.eval(params); }));

    step_evaluator steps(p);
    std::unordered_map<const instruction*, std::vector<double>> ins_times;
    for(std::size_t i = 0; i < n; i++)
        steps.run(params, [&](instruction_ref ins, const std::function<argument()>& compute) {
            argument r;
            ins_times[&*ins].push_back(time_ms([&] {
                r = compute();
                ctx.finish();
            }));
            return r;
        });

    std::vector<double> overheads;
    for(std::size_t i = 0; i < n; i++)
        overheads.push_back(
            time_ms([&] { steps.run(params, [](instruction_ref, const std::function<argument()>&) { return argument{}; }); }));

    const auto* mm = p.get_main_module();
    auto means     = per_instruction_means(*mm, ins_times);
    const auto& avg = means.avg;
    double total_ins = means.total;
    const auto& groups = means.groups;

    auto names = mm->instruction_names();
    for(auto ins = mm->begin(); ins != mm->end(); ++ins)
    {
        mm->print_instruction(os, ins, names);
        if(ins->name() != "@return")
            os << ": " << avg.at(&*ins) << "ms, " << percent(avg.at(&*ins), total_ins) << "%";
        os << "\n";
    }

    os << "\nSummary:\n";
    print_groups(os, groups, total_ins);

    // As MIGraphX: Total time and every instruction's time are the mean of the middle half of
    // the -n runs, so the two compare like with like.
    double total    = middle_mean(totals);
    double overhead = middle_mean(overheads);
    double computed = total - total_ins;
    os << "\n";
    os << "Batch size: " << batch << "\n";
    os << "Rate: " << (total > 0 ? 1000.0 / total * static_cast<double>(batch) : 0.0) << "/sec\n";
    os << "Total time: " << total << "ms (Min: " << *std::min_element(totals.begin(), totals.end())
       << "ms, Median: " << median(totals) << "ms, Max: " << *std::max_element(totals.begin(), totals.end()) << "ms)\n";
    os << "Total instructions time: " << total_ins << "ms\n";
    os << "Overhead time: " << overhead << "ms, " << computed << "ms\n";
    os << "Overhead: " << std::round(percent(overhead, total)) << "%, " << std::round(percent(computed, total))
       << "%" << std::endl;
    if(computed < 0 and graph_replay)
        os << "Note: whole runs replay as a CUDA graph (compile_options::cuda_graph); the instruction times come "
              "from runs instruction by instruction, each launched and waited for, so they add up to more than a "
              "run takes"
           << std::endl;
}

void enqueue_report(std::ostream& os, const program& p, const parameter_map& params, std::size_t n)
{
    context& ctx = p.get_context();
    step_evaluator steps(p);
    std::unordered_map<const instruction*, std::vector<double>> times;
    std::vector<double> waits;
    for(std::size_t i = 0; i < n; i++)
    {
        steps.run(params, [&](instruction_ref ins, const std::function<argument()>& compute) {
            argument r;
            times[&*ins].push_back(time_ms([&] { r = compute(); }));
            return r;
        });
        waits.push_back(time_ms([&] { ctx.finish(); }));
    }
    auto means   = per_instruction_means(*p.get_main_module(), times);
    double total = means.total;
    os << "\nEnqueue summary:\n";
    print_groups(os, means.groups, total);
    os << "\nEnqueue time: " << total << "ms\n";
    os << "Device wait after enqueue: " << middle_mean(waits) << "ms" << std::endl;
}

} // namespace driver
} // namespace migraphx
