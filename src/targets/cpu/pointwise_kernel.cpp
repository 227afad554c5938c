#include "targets/cpu/pointwise_kernel.hpp"
#include "targets/cpu/omp_region.hpp"
#include "targets/cpu/fast_math.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace migraphx {
namespace cpu {
namespace {

constexpr std::size_t tile = 1024;

enum class code
{
    add, sub, mul, div, max, min, pow, relu, neg, abs, exp, log, sqrt, rsqrt, recip, tanh, sigmoid,
    erf, leaky_relu, clip, identity, prelu, hardswish
};

const std::map<std::string, std::pair<code, std::size_t>>& table()
{
    static const std::map<std::string, std::pair<code, std::size_t>> t = {
        {"add", {code::add, 2}},       {"sub", {code::sub, 2}},         {"mul", {code::mul, 2}},
        {"div", {code::div, 2}},       {"max", {code::max, 2}},         {"min", {code::min, 2}},
        {"pow", {code::pow, 2}},       {"relu", {code::relu, 1}},       {"neg", {code::neg, 1}},
        {"abs", {code::abs, 1}},       {"exp", {code::exp, 1}},         {"log", {code::log, 1}},
        {"sqrt", {code::sqrt, 1}},     {"rsqrt", {code::rsqrt, 1}},     {"recip", {code::recip, 1}},
        {"tanh", {code::tanh, 1}},     {"sigmoid", {code::sigmoid, 1}}, {"erf", {code::erf, 1}},
        {"leaky_relu", {code::leaky_relu, 1}}, {"clip", {code::clip, 3}}, {"identity", {code::identity, 1}},
        {"contiguous", {code::identity, 1}}, {"prelu", {code::prelu, 2}}, {"hardswish", {code::hardswish, 1}}};
    return t;
}

__attribute__((target_clones("avx2", "default"))) void
run_step(code c, float alpha, const float* a, const float* b, const float* d, float* r, std::size_t n)
{
    switch(c)
    {
    case code::add: for(std::size_t i = 0; i < n; i++) r[i] = a[i] + b[i]; break;
    case code::sub: for(std::size_t i = 0; i < n; i++) r[i] = a[i] - b[i]; break;
    case code::mul: for(std::size_t i = 0; i < n; i++) r[i] = a[i] * b[i]; break;
    case code::div: for(std::size_t i = 0; i < n; i++) r[i] = a[i] / b[i]; break;
    case code::max: for(std::size_t i = 0; i < n; i++) r[i] = a[i] < b[i] ? b[i] : a[i]; break;
    case code::min: for(std::size_t i = 0; i < n; i++) r[i] = b[i] < a[i] ? b[i] : a[i]; break;
    case code::pow:
        for(std::size_t i = 0; i < n; i++)
            r[i] = b[i] == 2.0f ? a[i] * a[i] : std::pow(a[i], b[i]);
        break;
    case code::relu: for(std::size_t i = 0; i < n; i++) r[i] = a[i] < 0.0f ? 0.0f : a[i]; break; // NaN stays NaN
    case code::neg: for(std::size_t i = 0; i < n; i++) r[i] = -a[i]; break;
    case code::abs: for(std::size_t i = 0; i < n; i++) r[i] = std::abs(a[i]); break;
    case code::exp: for(std::size_t i = 0; i < n; i++) r[i] = fast_exp(a[i]); break;
    case code::log: for(std::size_t i = 0; i < n; i++) r[i] = std::log(a[i]); break;
    case code::sqrt: for(std::size_t i = 0; i < n; i++) r[i] = std::sqrt(a[i]); break;
    case code::rsqrt: for(std::size_t i = 0; i < n; i++) r[i] = 1.0f / std::sqrt(a[i]); break;
    case code::recip: for(std::size_t i = 0; i < n; i++) r[i] = 1.0f / a[i]; break;
    case code::tanh:
        for(std::size_t i = 0; i < n; i++)
            r[i] = fast_tanh(a[i]);
        break;
    case code::sigmoid: for(std::size_t i = 0; i < n; i++) r[i] = 1.0f / (1.0f + fast_exp(-a[i])); break;
    case code::erf: for(std::size_t i = 0; i < n; i++) r[i] = fast_erf(a[i]); break;
    case code::leaky_relu: for(std::size_t i = 0; i < n; i++) r[i] = a[i] < 0.0f ? alpha * a[i] : a[i]; break;
    case code::clip:
        for(std::size_t i = 0; i < n; i++)
            r[i] = std::min(std::max(a[i], b[i]), d[i]);
        break;
    case code::identity: std::memcpy(r, a, n * sizeof(float)); break;
    case code::prelu: for(std::size_t i = 0; i < n; i++) r[i] = a[i] < 0.0f ? a[i] * b[i] : a[i]; break;
    case code::hardswish: // as the reference op: x * clamp(x / 6 + 1/2, 0, 1), NaN kept
        for(std::size_t i = 0; i < n; i++)
        {
            float y = a[i] / 6.0f + 0.5f;
            r[i]    = a[i] * (y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y));
        }
        break;
    }
}

/// The iteration space after merging adjacent dims that every input walks contiguously across
/// (a per-channel bias {1, C, H, W} with strides {0, 1, 0, 0} becomes {C, H*W} with {1, 0}), so
/// that the innermost dim, which the kernel walks in rows, is as long as possible.
struct iteration_space
{
    std::vector<std::size_t> lens;
    std::vector<std::vector<std::size_t>> strides; // per input

    /// Over the first n of in (a planned kernel's last argument is its output buffer).
    iteration_space(const std::vector<std::size_t>& l, const std::vector<argument>& in, std::size_t n)
    {
        for(std::size_t i = 0; i < n; i++)
            strides.push_back(in[i].get_shape().strides());
        lens = l;
        if(lens.empty())
        {
            lens = {1};
            for(auto& st : strides)
                st = {0};
        }
        for(std::size_t d = lens.size() - 1; d-- > 0;)
        {
            bool mergeable = std::all_of(strides.begin(), strides.end(), [&](const auto& st) {
                return st[d] == st[d + 1] * lens[d + 1] or lens[d] == 1;
            });
            if(not mergeable)
                continue;
            lens[d + 1] *= lens[d];
            lens.erase(lens.begin() + static_cast<std::ptrdiff_t>(d));
            for(auto& st : strides)
                st.erase(st.begin() + static_cast<std::ptrdiff_t>(d));
        }
    }
    std::size_t row_length() const { return lens.back(); }
    /// Input i is the same row repeated (zero strides on every outer dim).
    bool periodic(std::size_t i) const
    {
        for(std::size_t d = 0; d + 1 < lens.size(); d++)
            if(strides[i][d] != 0 and lens[d] != 1)
                return false;
        return true;
    }
    /// Input i's rows follow each other in memory (row-major, unit inner stride).
    bool flat(std::size_t i) const
    {
        if(strides[i].back() != 1)
            return false;
        for(std::size_t d = 0; d + 1 < lens.size(); d++)
            if(lens[d] != 1 and strides[i][d] != strides[i][d + 1] * lens[d + 1])
                return false;
        return true;
    }
    /// Offset of the start of row r for input i.
    std::size_t row_offset(std::size_t i, std::size_t r) const
    {
        std::size_t off = 0;
        for(std::size_t d = lens.size() - 1; d-- > 0;)
        {
            off += (r % lens[d]) * strides[i][d];
            r /= lens[d];
        }
        return off;
    }
};

} // namespace

bool pointwise_kernel::supports(const std::string& op, std::size_t n)
{
    auto it = table().find(op);
    return it != table().end() and it->second.second == n;
}

shape pointwise_kernel::compute_shape(const std::vector<shape>& all) const
{
    auto in = own_inputs(all, planned);
    if(in.size() != inputs or in.empty())
        MIGRAPHX_THROW("cpu::pointwise: expected " + std::to_string(inputs) + " inputs, got " + std::to_string(in.size()));
    for(const auto& s : in)
        if(s.type() != shape::float_type or not(s.lens() == in[0].lens()))
            MIGRAPHX_THROW("cpu::pointwise: inputs must be float tensors of equal dims");
    if(ops.empty() or arity.size() != ops.size() or alpha.size() > ops.size())
        MIGRAPHX_THROW("cpu::pointwise: empty or inconsistent program");
    // A saved program may carry anything: every step must read only inputs, constants and
    // earlier steps, with its op's arity.
    std::size_t next = 0;
    for(std::size_t i = 0; i < ops.size(); i++)
    {
        if(arity[i] < 0 or not supports(ops[i], static_cast<std::size_t>(arity[i])))
            MIGRAPHX_THROW("cpu::pointwise: step " + std::to_string(i) + " ('" + ops[i] + "') is not a kernel step");
        auto limit = static_cast<std::int64_t>(inputs + constants.size() + i);
        for(std::int64_t k = 0; k < arity[i]; k++, next++)
            if(next >= args.size() or args[next] < 0 or args[next] >= limit)
                MIGRAPHX_THROW("cpu::pointwise: step " + std::to_string(i) + " reads a slot that does not exist");
    }
    if(next != args.size())
        MIGRAPHX_THROW("cpu::pointwise: argument list does not match the steps");
    return planned_shape(name(), {shape::float_type, in[0].lens()}, all, planned);
}

std::shared_ptr<const std::vector<int>> pointwise_kernel::step_codes() const
{
    // Threads may race to fill it: each makes the same list, and the shared pointer is swapped
    // atomically, so a reader holds a whole list either way.
    auto c = std::atomic_load(&m_codes.list);
    if(c != nullptr)
        return c;
    auto made = std::make_shared<std::vector<int>>();
    for(const auto& o : ops)
    {
        auto it = table().find(o);
        if(it == table().end())
            MIGRAPHX_THROW("cpu::pointwise: '" + o + "' is not a kernel step");
        made->push_back(static_cast<int>(it->second.first));
    }
    c = made;
    std::atomic_store(&m_codes.list, c);
    return c;
}

void pointwise_kernel::run_small(float* dst, std::size_t n, const std::vector<argument>& in) const
{
    // One tile, every input read in place: a small call (an LSTM step's gates, 128 values) pays
    // for no iteration space, work items or buffers of its own (1.34 -> 0.83 us a call).
    thread_local std::vector<float> buf;
    thread_local std::vector<const float*> ptr;
    const std::size_t fixed = inputs + constants.size();
    buf.resize((constants.size() + ops.size()) * n);
    ptr.resize(fixed + ops.size());
    for(std::size_t i = 0; i < inputs; i++)
        ptr[i] = reinterpret_cast<const float*>(in[i].data());
    for(std::size_t c = 0; c < constants.size(); c++)
    {
        std::fill_n(buf.data() + c * n, n, constants[c]);
        ptr[inputs + c] = buf.data() + c * n;
    }
    const auto codes  = step_codes();
    std::size_t first = 0;
    for(std::size_t s = 0; s < ops.size(); s++)
    {
        float* res = s + 1 == ops.size() ? dst : buf.data() + (constants.size() + s) * n;
        auto arg   = [&](std::size_t a) {
            return a < static_cast<std::size_t>(arity[s]) ? ptr[args[first + a]] : nullptr;
        };
        run_step(static_cast<code>((*codes)[s]), s < alpha.size() ? alpha[s] : 0.0f, arg(0), arg(1), arg(2), res, n);
        ptr[fixed + s] = res;
        first += static_cast<std::size_t>(arity[s]);
    }
}

argument pointwise_kernel::compute(const shape& out, const std::vector<argument>& all) const
{
    argument result = result_buffer(out, all, planned);
    auto* dst       = reinterpret_cast<float*>(result.data());
    const auto& in = all; // the first `inputs` of them; a planned kernel's output buffer follows
    if(out.elements() <= tile and
       std::all_of(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(inputs), [](const argument& a) {
           return a.get_shape().standard(); // row-major, any stride on 1-length dims
       }))
    {
        run_small(dst, out.elements(), in);
        return result;
    }
    iteration_space space(out.lens(), in, inputs);
    // Work items are chunks of rows of the innermost (merged) dim: inputs that are contiguous
    // along it are read in place, broadcast ones are filled once per chunk, others gathered.
    // Where rows are short (a per-channel operand on channels-last data: rows of C values), an
    // item is several whole rows instead: MTCNN's PReLUs on 10-32 channels took 3x as long a row
    // at a time.
    std::size_t row    = std::max<std::size_t>(space.row_length(), 1);
    std::size_t rows   = out.elements() / row;
    std::size_t k      = 2 * row <= tile and rows > 1 ? std::min(tile / row, rows) : 1; // rows an item
    std::size_t chunk  = k > 1 ? k * row : std::min(tile, row);
    std::size_t per    = k > 1 ? 1 : (row + chunk - 1) / chunk;
    std::size_t items  = k > 1 ? (rows + k - 1) / k : rows * per;
    std::size_t slots  = inputs + constants.size() + ops.size();
    std::vector<std::size_t> first_arg(ops.size());
    for(std::size_t i = 1; i < ops.size(); i++)
        first_arg[i] = first_arg[i - 1] + static_cast<std::size_t>(arity[i - 1]);
    const auto codes = step_codes();
    std::vector<const float*> data;
    for(std::size_t i = 0; i < inputs; i++)
        data.push_back(reinterpret_cast<const float*>(in[i].data()));
    // How an item of several rows reads each input: one row repeated (filled once a thread),
    // consecutive rows in place, or row by row into the buffer.
    std::vector<bool> periodic(inputs), flat(inputs);
    for(std::size_t i = 0; i < inputs and k > 1; i++)
    {
        periodic[i] = space.periodic(i);
        flat[i]     = not periodic[i] and space.flat(i);
    }
    // len elements of input i's row at base from position c0 into b (or b unused: returned in place)
    auto read_row = [&](std::size_t i, const float* base, std::size_t c0, std::size_t len, float* b) {
        auto inner = space.strides[i].back();
        if(inner == 1)
            return base + c0;
        if(inner == 0)
            std::fill_n(b, len, *base);
        else
            for(std::size_t j = 0; j < len; j++)
                b[j] = base[(c0 + j) * inner];
        return static_cast<const float*>(b);
    };
    // input i's whole row at base written into b (copied where read_row would read it in place)
    auto row_into = [&](std::size_t i, const float* base, float* b) {
        const float* r = read_row(i, base, 0, row, b);
        if(r != b)
            std::copy(r, r + row, b);
    };

    // Each slot's buffer holds one item (chunk <= tile): a small tensor's call (an LSTM step's
    // 128 gates) allocates and fills that much, not a whole tile per slot.
    const std::size_t pitch = chunk;
    omp_region(out.elements() > 4 * tile, 0, [&] {
        std::vector<float> buf(slots * pitch);
        std::vector<const float*> ptr(slots);
        for(std::size_t c = 0; c < constants.size(); c++)
        {
            std::fill_n(buf.data() + (inputs + c) * pitch, pitch, constants[c]);
            ptr[inputs + c] = buf.data() + (inputs + c) * pitch;
        }
        for(std::size_t i = 0; i < inputs; i++)
        {
            if(not periodic[i])
                continue;
            for(std::size_t j = 0; j < k; j++)
                row_into(i, data[i], buf.data() + i * pitch + j * row);
        }
#pragma omp for schedule(static)
        for(std::size_t item = 0; item < items; item++)
        {
            std::size_t len = 0;
            float* out_row  = nullptr;
            if(k > 1)
            {
                std::size_t r0 = item * k, n = std::min(k, rows - r0);
                len            = n * row;
                out_row        = dst + r0 * row;
                for(std::size_t i = 0; i < inputs; i++)
                {
                    float* b = buf.data() + i * pitch;
                    if(periodic[i])
                        ptr[i] = b;
                    else if(flat[i])
                        ptr[i] = data[i] + space.row_offset(i, r0);
                    else
                    {
                        for(std::size_t j = 0; j < n; j++)
                            row_into(i, data[i] + space.row_offset(i, r0 + j), b + j * row);
                        ptr[i] = b;
                    }
                }
            }
            else
            {
                std::size_t r  = item / per;
                std::size_t c0 = (item % per) * chunk;
                len            = std::min(chunk, row - c0);
                out_row        = dst + r * row + c0;
                for(std::size_t i = 0; i < inputs; i++)
                    ptr[i] = read_row(i, data[i] + space.row_offset(i, r), c0, len, buf.data() + i * pitch);
            }
            for(std::size_t s = 0; s < ops.size(); s++)
            {
                std::size_t slot = inputs + constants.size() + s;
                // the last step writes straight into the result
                float* res = s + 1 == ops.size() ? out_row : buf.data() + slot * pitch;
                auto arg   = [&](std::size_t a) {
                    return a < static_cast<std::size_t>(arity[s]) ? ptr[args[first_arg[s] + a]] : nullptr;
                };
                run_step(static_cast<code>((*codes)[s]), s < alpha.size() ? alpha[s] : 0.0f, arg(0), arg(1), arg(2), res, len);
                ptr[slot] = res;
            }
        }
    });
    return result;
}

MIGRAPHX_REGISTER_OP(pointwise_kernel)

} // namespace cpu
} // namespace migraphx
