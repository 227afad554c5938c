// Calibration for quantize_int8: a capture op is put after each watched value; a copy of the
// program with them is compiled for the target and run on every calibration map; each capture's
// compute folds max|x| of what passes through into a table shared by all copies of the op, and in
// a second round (when histograms are wanted) a histogram of |x| over [0, max].
// The table is found through a registry by (session, index), plain integer attributes, so the
// op survives any pass that rebuilds operations from their attributes.
#include "quantize/calibrate.hpp"
#include "ir/env.hpp"
#include "ir/parallel_for.hpp"
#include "ir/shape_text.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace migraphx {
namespace {

struct range_table
{
    std::mutex lock;
    std::vector<float> abs_max;
    std::vector<std::vector<double>> hist; // filled only while `histogram` is set
    std::vector<std::vector<double>> sums; // per channel along the capture's axis (first round)
    std::vector<double> counts;            // values per channel summed so far
    bool histogram = false;
};

std::mutex& registry_lock()
{
    static std::mutex m;
    return m;
}
std::map<std::int64_t, std::shared_ptr<range_table>>& registry()
{
    static std::map<std::int64_t, std::shared_ptr<range_table>> r;
    return r;
}

std::shared_ptr<range_table> find_table(std::int64_t session)
{
    std::lock_guard<std::mutex> g(registry_lock());
    auto it = registry().find(session);
    return it == registry().end() ? nullptr : it->second;
}

/// Values a thread takes at a time: fixed, so that sums come out the same on any machine.
constexpr std::size_t chunk = std::size_t{1} << 16;

/// Calls g(c, begin, end, read) for the fixed chunks c of a's values in logical order, read(k)
/// giving value k as double (through the strides where a is not standard: NHWC or blocked
/// layouts, views); the chunks spread over the host's threads (a large model's calibration
/// reads gigabytes here).
template <class G>
void over_chunks(const argument& a, G g)
{
    const auto& s = a.get_shape();
    std::size_t n  = s.elements();
    std::size_t nc = (n + chunk - 1) / chunk;
    auto run       = [&](auto read) {
        parallel_for(nc, 1, [&](std::size_t b, std::size_t e) {
            for(std::size_t c = b; c < e; c++)
                g(c, c * chunk, std::min(n, (c + 1) * chunk), read);
        });
    };
    if(n == 0)
        return;
    s.visit_type([&](auto as) {
        using T      = typename decltype(as)::type;
        const T* ptr = reinterpret_cast<const T*>(a.data());
        if(s.standard())
            run([ptr](std::size_t k) { return static_cast<double>(ptr[k]); });
        else
            run([ptr, &s](std::size_t k) { return static_cast<double>(ptr[s.index(k)]); });
    });
}

/// Passes its input through, recording max|x| in table `session` at `index`.
struct quantize_capture
{
    std::int64_t session = 0;
    std::int64_t index   = 0;
    std::int64_t axis    = -1; // channel axis for per-channel means; -1: none
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.session, "session");
        f(self.index, "index");
        f(self.axis, "axis");
    }
    std::string name() const { return "quantize_capture"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        if(inputs.size() != 1)
            MIGRAPHX_THROW("quantize_capture: expected 1 input, got " + std::to_string(inputs.size()));
        return inputs[0];
    }
    argument compute(const shape&, const std::vector<argument>& args) const
    {
        auto t = find_table(session);
        if(not t)
            return args[0];
        auto i = static_cast<std::size_t>(index);
        bool histogram;
        float top = 0;
        {
            std::lock_guard<std::mutex> g(t->lock);
            histogram = t->histogram;
            top       = t->abs_max.at(i);
        }
        std::size_t n  = args[0].get_shape().elements();
        std::size_t nc = (n + chunk - 1) / chunk;
        if(histogram)
        {
            std::vector<std::vector<std::uint32_t>> part(nc);
            double per = top > 0 ? static_cast<double>(hist_bins) / top : 0.0;
            over_chunks(args[0], [&](std::size_t c, std::size_t b, std::size_t e, auto read) {
                auto& h = part[c];
                h.assign(hist_bins, 0);
                for(std::size_t k = b; k < e; k++)
                {
                    double x = std::abs(read(k));
                    if(not(x == x)) // NaN: no bin
                        continue;
                    h[static_cast<std::size_t>(std::min(x * per, static_cast<double>(hist_bins - 1)))]++;
                }
            });
            std::lock_guard<std::mutex> g(t->lock);
            auto& slot = t->hist.at(i);
            for(const auto& h : part)
                for(std::size_t b = 0; b < hist_bins; b++)
                    slot[b] += h[b];
            return args[0];
        }
        const auto& lens  = args[0].get_shape().lens();
        bool per_channel  = axis >= 0 and static_cast<std::size_t>(axis) < lens.size();
        std::size_t nch   = per_channel ? lens[static_cast<std::size_t>(axis)] : 1;
        std::size_t inner = 1;
        for(std::size_t d = per_channel ? static_cast<std::size_t>(axis) + 1 : lens.size(); d < lens.size(); d++)
            inner *= lens[d];
        std::vector<double> part_max(nc, 0.0);
        std::vector<std::vector<double>> part_sums(per_channel ? nc : 0);
        over_chunks(args[0], [&](std::size_t c, std::size_t b, std::size_t e, auto read) {
            double m = 0;
            if(per_channel)
            {
                auto& sums = part_sums[c];
                sums.assign(nch, 0.0);
                for(std::size_t k = b; k < e; k++)
                {
                    double y = read(k);
                    double x = std::abs(y);
                    if(x > m) // NaN never wins
                        m = x;
                    sums[(k / inner) % nch] += y;
                }
            }
            else
                for(std::size_t k = b; k < e; k++)
                {
                    double x = std::abs(read(k));
                    if(x > m)
                        m = x;
                }
            part_max[c] = m;
        });
        double m = 0;
        for(auto x : part_max)
            m = std::max(m, x);
        // per-channel sums added chunk by chunk in order: the same result however many threads
        std::vector<double> sums(nch, 0.0);
        for(const auto& ps : part_sums)
            for(std::size_t ch = 0; ch < nch; ch++)
                sums[ch] += ps[ch];
        std::lock_guard<std::mutex> g(t->lock);
        auto& slot = t->abs_max.at(i);
        slot       = std::max(slot, static_cast<float>(m));
        if(per_channel)
        {
            auto& acc = t->sums.at(i);
            if(acc.empty())
                acc.assign(nch, 0.0);
            for(std::size_t c = 0; c < nch and c < acc.size(); c++)
                acc[c] += sums[c];
            t->counts.at(i) += static_cast<double>(args[0].get_shape().elements() / nch);
        }
        return args[0];
    }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(quantize_capture)

} // namespace

void check_calibration(const program& prog, const std::vector<parameter_map>& calibration)
{
    auto inputs = prog.get_inputs();
    for(std::size_t i = 0; i < calibration.size(); i++)
    {
        auto where = "quantize_int8: calibration map " + std::to_string(i) + ": ";
        for(const auto& [name, s] : inputs)
        {
            auto it = calibration[i].find(name);
            if(it == calibration[i].end())
                MIGRAPHX_THROW(where + "missing the model input '" + name + "' (" + shape_text(s) + ")");
            const auto& a = it->second.get_shape();
            if(a.type() != s.type() or a.lens() != s.lens())
                MIGRAPHX_THROW(where + "input '" + name + "' has shape " + shape_text(a) + ", the model wants " +
                               shape_text(s));
            if(it->second.data() == nullptr and a.elements() != 0)
                MIGRAPHX_THROW(where + "input '" + name + "' has no data");
        }
        for(const auto& kv : calibration[i])
            if(inputs.count(kv.first) == 0)
                MIGRAPHX_THROW(where + "'" + kv.first + "' is not an input of the model");
    }
}

phase_timer::phase_timer() : on_(env_enabled("MIGRAPHX_TIME_QUANTIZE")), last_(std::chrono::steady_clock::now()) {}

void phase_timer::lap(const std::string& phase)
{
    auto now = std::chrono::steady_clock::now();
    if(on_)
        std::cerr << "quantize_int8: " << phase << ": "
                  << std::chrono::duration<double, std::milli>(now - last_).count() << " ms\n";
    last_ = now;
}

std::vector<value_range> calibrate_ranges(program& prog,
                                          const target& t,
                                          const std::vector<parameter_map>& calibration,
                                          const std::vector<instruction_ref>& watched,
                                          bool histograms,
                                          const std::vector<std::int64_t>& axes,
                                          std::size_t keep_outputs,
                                          std::vector<std::vector<double>>* outputs)
{
    static std::atomic<std::int64_t> next_session{1};
    auto session = next_session++;
    auto table   = std::make_shared<range_table>();
    table->abs_max.assign(watched.size(), 0.0f);
    table->sums.assign(watched.size(), {});
    table->counts.assign(watched.size(), 0.0);
    {
        std::lock_guard<std::mutex> g(registry_lock());
        registry()[session] = table;
    }
    struct unregister
    {
        std::int64_t s;
        ~unregister()
        {
            std::lock_guard<std::mutex> g(registry_lock());
            registry().erase(s);
        }
    } guard{session};

    auto* m = prog.get_main_module();
    std::vector<instruction_ref> captures;
    for(std::size_t i = 0; i < watched.size(); i++)
    {
        auto x = watched[i];
        quantize_capture cap{session, static_cast<std::int64_t>(i), i < axes.size() ? axes[i] : -1};
        auto c = m->insert_instruction(std::next(x), operation{cap}, {x});
        m->replace_instruction(x, c); // every user of x but c itself
        captures.push_back(c);
    }
    program instrumented = prog;
    for(auto c : captures)
    {
        auto x = c->inputs().front();
        m->replace_instruction(c, x);
        m->remove_instruction(c);
    }
    phase_timer timer;
    compile_options co;
    co.offload_copy = true;
    instrumented.compile(t, co);
    timer.lap("calibration compile (" + std::to_string(watched.size()) + " values watched)");
    for(std::size_t i = 0; i < calibration.size(); i++)
    {
        auto results = instrumented.eval(calibration[i]);
        if(outputs != nullptr and i < keep_outputs)
            outputs->push_back(flatten_outputs(results));
    }
    timer.lap("calibration runs, ranges (" + std::to_string(calibration.size()) + " maps)");
    if(histograms)
    {
        {
            std::lock_guard<std::mutex> g(table->lock);
            table->hist.assign(watched.size(), std::vector<double>(hist_bins, 0.0));
            table->histogram = true;
        }
        for(const auto& params : calibration)
            instrumented.eval(params);
        timer.lap("calibration runs, histograms");
    }
    std::lock_guard<std::mutex> g(table->lock);
    std::vector<value_range> r(watched.size());
    for(std::size_t i = 0; i < watched.size(); i++)
    {
        r[i].abs_max = table->abs_max[i];
        if(table->counts[i] > 0)
            for(auto sum : table->sums[i])
                r[i].channel_mean.push_back(sum / table->counts[i]);
        if(histograms)
            r[i].hist = std::move(table->hist[i]);
    }
    return r;
}

std::vector<double> flatten_outputs(const std::vector<argument>& results)
{
    std::vector<double> r;
    for(const auto& a : results)
    {
        auto v = a.to_vector<double>();
        r.insert(r.end(), v.begin(), v.end());
    }
    return r;
}

double cosine_similarity(const std::vector<double>& a, const std::vector<double>& b)
{
    if(a.size() != b.size())
        return 0;
    double ab = 0, aa = 0, bb = 0;
    for(std::size_t i = 0; i < a.size(); i++)
    {
        ab += a[i] * b[i];
        aa += a[i] * a[i];
        bb += b[i] * b[i];
    }
    if(std::isnan(ab) or std::isnan(aa) or std::isnan(bb))
        return 0;
    if(aa == 0 and bb == 0)
        return 1;
    if(aa == 0 or bb == 0)
        return 0;
    return ab / std::sqrt(aa * bb);
}

float range_scale(float range, float levels)
{
    return range > 0 and std::isfinite(range) ? range / levels : 1.0f;
}

float choose_threshold(const value_range& r, int levels, const std::string& method)
{
    if(method != "max" and method != "mse" and method.rfind("percentile:", 0) != 0)
        MIGRAPHX_THROW("quantize_int8: unknown calibration method '" + method +
                       "' (max, mse or percentile:P)");
    if(levels < 1)
        MIGRAPHX_THROW("quantize_int8: levels must be positive");
    double total = 0;
    for(auto c : r.hist)
        total += c;
    if(method == "max" or r.hist.empty() or not(r.abs_max > 0) or not std::isfinite(r.abs_max) or total <= 0)
        return r.abs_max;
    const auto n     = r.hist.size();
    const double bin = static_cast<double>(r.abs_max) / static_cast<double>(n);
    if(method != "mse")
    {
        double p = 0;
        try
        {
            p = std::stod(method.substr(11));
        }
        catch(const std::exception&)
        {
            MIGRAPHX_THROW("quantize_int8: bad percentile in '" + method + "'");
        }
        if(not(p > 0 and p <= 100))
            MIGRAPHX_THROW("quantize_int8: the percentile must be in (0, 100], got '" + method + "'");
        double want = total * p / 100, seen = 0;
        for(std::size_t b = 0; b < n; b++)
        {
            seen += r.hist[b];
            if(seen >= want)
                return static_cast<float>(bin * static_cast<double>(b + 1));
        }
        return r.abs_max;
    }
    // mse: thresholds at bin edges, values at their bin centres. Inside [0, T] a value below
    // step/2 rounds to 0 (error x^2: relu's many exact zeros cost nothing), others carry the
    // rounding noise step^2/12; beyond T the error is (x - T)^2. Prefix sums of count, count*x
    // and count*x^2 make each candidate O(1).
    std::vector<double> c0(n + 1, 0.0), c1(n + 1, 0.0), c2(n + 1, 0.0);
    for(std::size_t b = 0; b < n; b++)
    {
        double x  = bin * (static_cast<double>(b) + 0.5);
        c0[b + 1] = c0[b] + r.hist[b];
        c1[b + 1] = c1[b] + r.hist[b] * x;
        c2[b + 1] = c2[b] + r.hist[b] * x * x;
    }
    double best_err  = -1;
    std::size_t best = n;
    for(std::size_t e = std::max<std::size_t>(1, n / 64); e <= n; e++)
    {
        double t    = bin * static_cast<double>(e);
        double step = t / levels;
        // bins whose centre is below step/2
        auto z      = std::min(e, static_cast<std::size_t>(std::max(0.0, std::ceil(step / 2 / bin - 0.5))));
        double low  = c2[z];
        double mid  = (c0[e] - c0[z]) * step * step / 12;
        double high = (c2[n] - c2[e]) - 2 * t * (c1[n] - c1[e]) + t * t * (c0[n] - c0[e]);
        double err  = low + mid + high;
        if(best_err < 0 or err < best_err)
        {
            best_err = err;
            best     = e;
        }
    }
    return static_cast<float>(bin * static_cast<double>(best));
}

} // namespace migraphx
