// Calibration for quantize_int8: a capture op is put after each watched value; a copy of the
// program with them is compiled for the target and run on every calibration map; each capture's
// compute folds max|x| of what passes through into a table shared by all copies of the op.
// The table is found through a registry by (session, index), plain integer attributes, so the
// op survives any pass that rebuilds operations from their attributes.
#include "quantize/calibrate.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
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

/// Passes its input through, recording max|x| in table `session` at `index`.
struct quantize_capture
{
    std::int64_t session = 0;
    std::int64_t index   = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.session, "session");
        f(self.index, "index");
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
        double m = 0;
        args[0].visit([&](auto v) {
            for(std::size_t i = 0; i < v.size(); i++)
            {
                double x = std::abs(static_cast<double>(v[i]));
                if(x > m) // NaN never wins
                    m = x;
            }
        });
        if(auto t = find_table(session))
        {
            std::lock_guard<std::mutex> g(t->lock);
            auto& slot = t->abs_max.at(static_cast<std::size_t>(index));
            slot       = std::max(slot, static_cast<float>(m));
        }
        return args[0];
    }
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};
MIGRAPHX_REGISTER_OP(quantize_capture)

std::string shape_text(const shape& s)
{
    std::ostringstream ss;
    ss << s;
    return ss.str();
}

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

std::vector<float> calibrate_abs_max(program& prog,
                                     const target& t,
                                     const std::vector<parameter_map>& calibration,
                                     const std::vector<instruction_ref>& watched)
{
    static std::atomic<std::int64_t> next_session{1};
    auto session = next_session++;
    auto table   = std::make_shared<range_table>();
    table->abs_max.assign(watched.size(), 0.0f);
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
        auto c = m->insert_instruction(std::next(x), operation{quantize_capture{session, static_cast<std::int64_t>(i)}}, {x});
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
    compile_options co;
    co.offload_copy = true;
    instrumented.compile(t, co);
    for(const auto& params : calibration)
        instrumented.eval(params);
    std::lock_guard<std::mutex> g(table->lock);
    return table->abs_max;
}

} // namespace migraphx
