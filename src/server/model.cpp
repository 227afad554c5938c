#include "server/model.hpp"
#include "server/error.hpp"
#include "ir/scratch_group.hpp"
#include <migraphx/load_save.hpp>
#include <migraphx/onnx.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace migraphx {
namespace server {

namespace fs = std::filesystem;

namespace {

std::string cache_name(std::size_t b) { return b == 0 ? "model.mxr" : "model_b" + std::to_string(b) + ".mxr"; }

std::vector<char> read_file(const fs::path& p)
{
    std::ifstream f(p, std::ios::binary);
    if(not f)
        throw std::runtime_error("cannot read " + p.string());
    return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Writes to a temporary file then renames it, so another server starting at the same time
// never reads half a file.
void write_file_atomic(const fs::path& p, const std::vector<char>& bytes)
{
    auto tmp = p;
    tmp += ".tmp." + std::to_string(::getpid());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if(not f)
            throw std::runtime_error("cannot write " + tmp.string());
        f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if(not f)
        {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw std::runtime_error("cannot write " + tmp.string());
        }
    }
    std::error_code ec;
    fs::rename(tmp, p, ec);
    if(ec)
    {
        fs::remove(tmp, ec);
        throw std::runtime_error("cannot rename " + tmp.string() + " to " + p.string());
    }
}

std::string dims_string(const std::vector<std::int64_t>& d)
{
    std::string r = "[";
    for(std::size_t i = 0; i < d.size(); i++)
        r += (i ? "," : "") + std::to_string(d[i]);
    return r + "]";
}

std::vector<std::string> input_names(const program& p)
{
    auto inputs = p.get_inputs();
    std::vector<std::string> r;
    for(const auto& n : p.get_parameter_names())
        if(inputs.count(n))
            r.push_back(n);
    return r;
}

// Parses model.onnx for batch size b (0: as the file says) and compiles it. Symbolic dims take
// the value b (1 when b is 0): the batch dimension is the one symbolic dim a served model may
// have. An input whose first dim the file fixes (ResNet-50 exported at batch 1) is given b there
// (map_input_dims; on a fixed dim it stays static).
std::vector<char> compile_onnx(const fs::path& onnx, std::size_t b, const load_options& options)
{
    onnx_options o;
    o.default_dim_value = b == 0 ? 1 : b;
    program p = parse_onnx(onnx.string(), o);
    if(b > 0)
    {
        bool reparse = false;
        for(const auto& [name, s] : p.get_inputs())
        {
            if(s.dynamic() or s.lens().empty())
                throw std::runtime_error("input '" + name + "' has no batch dimension; use max_batch_size: 0");
            if(s.lens()[0] != b)
            {
                auto lens = s.lens();
                lens[0]   = b;
                o.map_input_dims[name] = lens;
                reparse = true;
            }
        }
        if(reparse)
            p = parse_onnx(onnx.string(), o);
    }
    compile_options c;
    c.offload_copy = true; // the server hands host buffers in and takes host buffers out
    p.compile(get_target(options.target), c);
    return save_buffer(p);
}

} // namespace

std::shared_ptr<model> model::load(const std::string& name, const std::string& version,
                                   const std::string& version_dir, const model_config& config,
                                   const load_options& options)
{
    auto log = [&](const std::string& msg) {
        if(options.log)
            options.log(name + "/" + version + ": " + msg);
    };
    fs::path dir(version_dir);
    auto onnx = dir / "model.onnx";
    auto m    = std::make_shared<model>();
    m->m_name    = name;
    m->m_version = version;
    m->m_config  = config;
    std::map<std::size_t, std::vector<char>> buffers;
    if(fs::exists(onnx))
    {
        m->m_source = "onnx";
        for(auto b : compiled_batch_sizes(config))
        {
            auto cache = dir / cache_name(b);
            std::error_code ec;
            if(fs::exists(cache, ec) and fs::last_write_time(cache, ec) >= fs::last_write_time(onnx, ec))
            {
                try
                {
                    auto buf = read_file(cache);
                    auto p   = load_buffer(buf);
                    if(p.target_name() == options.target)
                    {
                        log("reusing " + cache.string());
                        buffers[b] = std::move(buf);
                        continue;
                    }
                    log(cache.string() + " was compiled for " + p.target_name() + "; compiling again");
                }
                catch(const std::exception& e)
                {
                    log("cannot reuse " + cache.string() + " (" + e.what() + "); compiling again");
                }
            }
            log("compiling " + onnx.string() + (b ? " at batch " + std::to_string(b) : "") + " for " + options.target);
            buffers[b] = compile_onnx(onnx, b, options);
            if(options.write_cache)
            {
                try
                {
                    write_file_atomic(cache, buffers[b]);
                    log("saved " + cache.string());
                }
                catch(const std::exception& e)
                {
                    log(std::string("warning: ") + e.what() + "; the compiled program is not cached");
                }
            }
        }
    }
    else
    {
        m->m_source = "mxr";
        if(config.max_batch_size > 0)
        {
            for(const auto& e : fs::directory_iterator(dir))
            {
                auto f = e.path().filename().string();
                if(f.size() >= 12 and f.rfind("model_b", 0) == 0 and f.substr(f.size() - 4) == ".mxr")
                {
                    auto digits = f.substr(7, f.size() - 11);
                    if(not digits.empty() and std::all_of(digits.begin(), digits.end(), ::isdigit))
                        buffers[std::stoul(digits)] = read_file(e.path());
                }
            }
        }
        if(buffers.empty())
        {
            auto mxr = dir / "model.mxr";
            if(not fs::exists(mxr))
                throw std::runtime_error("no model.onnx or model.mxr in " + dir.string());
            auto buf = read_file(mxr);
            std::size_t b = 0;
            if(config.max_batch_size > 0)
            {
                auto p      = load_buffer(buf);
                auto inputs = p.get_inputs();
                if(inputs.empty() or inputs.begin()->second.lens().empty())
                    throw std::runtime_error(mxr.string() + ": no input with a batch dimension; use max_batch_size: 0");
                b = inputs.begin()->second.lens()[0];
            }
            buffers[b] = std::move(buf);
        }
    }

    std::size_t n = config.instances ? config.instances : std::max<std::size_t>(1, options.default_instances);
    for(std::size_t i = 0; i < n; i++)
    {
        // Each instance loads its own program (on gpu: its own stream, handles and workspace).
        // Its thread runs them one at a time, so they share one scratch buffer, made for the
        // largest batch first.
        // (numbered by load, so that a model loaded again never shares with one still running)
        static std::atomic<unsigned long> loads{0};
        scratch_group_scope group(name + "/" + version + "/instance " + std::to_string(i) + "/load " +
                                  std::to_string(loads++));
        std::map<std::size_t, program> progs;
        for(auto it = buffers.rbegin(); it != buffers.rend(); ++it)
            progs.emplace(it->first, load_buffer(it->second));
        m->m_instances.push_back(std::move(progs));
    }

    // Metadata from the largest program; every program must agree with it.
    const auto& progs = m->m_instances.front();
    const auto& big   = progs.rbegin()->second;
    m->m_target       = big.target_name();
    for(const auto& [b, p] : progs)
    {
        auto in_shapes = p.get_inputs();
        auto names     = input_names(p);
        auto out_names = p.get_output_names();
        auto out       = p.get_output_shapes();
        auto describe  = [&](const std::string& nm, const shape& s, bool is_input) {
            if(s.dynamic() or s.type() == shape::tuple_type)
                throw std::runtime_error((is_input ? "input '" : "output '") + nm +
                                         "' has a dynamic or tuple shape, which the server does not serve");
            if(b > 0 and (s.lens().empty() or s.lens()[0] != b))
                throw std::runtime_error((is_input ? "input '" : "output '") + nm +
                                         "' does not have the batch as its first dimension; use max_batch_size: 0");
            tensor_info t;
            t.name = nm;
            t.type = s.type();
            for(std::size_t i = 0; i < s.lens().size(); i++)
                t.shape.push_back(i == 0 and b > 0 ? -1 : static_cast<std::int64_t>(s.lens()[i]));
            datatype_name(t.type); // throws for a type the protocol lacks
            return t;
        };
        std::vector<tensor_info> ins, outs;
        for(const auto& nm : names)
            ins.push_back(describe(nm, in_shapes.at(nm), true));
        for(std::size_t i = 0; i < out.size(); i++)
            outs.push_back(describe(i < out_names.size() ? out_names[i] : "output_" + std::to_string(i), out[i], false));
        if(&p == &progs.begin()->second)
        {
            m->m_inputs  = ins;
            m->m_outputs = outs;
        }
        else
        {
            auto same = [](const std::vector<tensor_info>& x, const std::vector<tensor_info>& y) {
                if(x.size() != y.size())
                    return false;
                for(std::size_t i = 0; i < x.size(); i++)
                    if(x[i].name != y[i].name or x[i].type != y[i].type or x[i].shape != y[i].shape)
                        return false;
                return true;
            };
            if(not same(ins, m->m_inputs) or not same(outs, m->m_outputs))
                throw std::runtime_error("the programs for different batch sizes disagree on inputs or outputs");
        }
    }
    if(m->m_inputs.empty())
        throw std::runtime_error("the model has no inputs");
    std::ostringstream ss;
    ss << "ready on " << m->m_target << ", " << n << " instance(s), batch sizes";
    for(auto b : m->batch_sizes())
        ss << " " << b;
    log(ss.str());
    return m;
}

std::vector<std::size_t> model::batch_sizes() const
{
    std::vector<std::size_t> r;
    for(const auto& kv : m_instances.front())
        r.push_back(kv.first);
    return r;
}

std::size_t model::max_rows() const
{
    if(not batched())
        return 1;
    return std::min(m_config.max_batch_size, m_instances.front().rbegin()->first);
}

std::size_t model::check(const infer_request& r) const
{
    std::size_t rows = 0;
    std::vector<bool> seen(m_inputs.size(), false);
    for(const auto& t : r.inputs)
    {
        auto it = std::find_if(m_inputs.begin(), m_inputs.end(), [&](const auto& i) { return i.name == t.name; });
        if(it == m_inputs.end())
        {
            std::string names;
            for(const auto& i : m_inputs)
                names += (names.empty() ? "" : ", ") + i.name;
            throw bad_request("model '" + m_name + "' has no input '" + t.name + "' (inputs: " + names + ")");
        }
        auto k = static_cast<std::size_t>(it - m_inputs.begin());
        if(seen[k])
            throw bad_request("input '" + t.name + "' is given twice");
        seen[k] = true;
        if(t.type != it->type)
            throw bad_request("input '" + t.name + "': datatype " + datatype_name(t.type) + " does not match the model's " +
                              datatype_name(it->type));
        bool fits = t.shape.size() == it->shape.size();
        for(std::size_t i = 0; fits and i < t.shape.size(); i++)
            fits = it->shape[i] == -1 ? t.shape[i] >= 1 : t.shape[i] == it->shape[i];
        if(not fits)
            throw bad_request("input '" + t.name + "': shape " + dims_string(t.shape) + " does not match the model's " +
                              dims_string(it->shape));
        std::size_t n = batched() ? static_cast<std::size_t>(t.shape[0]) : 1;
        if(n > max_rows())
            throw bad_request("input '" + t.name + "': batch " + std::to_string(n) + " is larger than the model's maximum " +
                              std::to_string(max_rows()));
        if(rows != 0 and n != rows)
            throw bad_request("the inputs disagree on the batch size");
        rows = n;
        if(t.data.size() != element_count(t.shape) * shape::type_size(t.type))
            throw bad_request("input '" + t.name + "': " + std::to_string(t.data.size()) + " bytes of data for shape " +
                              dims_string(t.shape));
    }
    for(std::size_t k = 0; k < m_inputs.size(); k++)
        if(not seen[k])
            throw bad_request("missing input '" + m_inputs[k].name + "'");
    for(const auto& o : r.outputs)
    {
        if(std::none_of(m_outputs.begin(), m_outputs.end(), [&](const auto& i) { return i.name == o.name; }))
            throw bad_request("model '" + m_name + "' has no output '" + o.name + "'");
    }
    return rows;
}

std::vector<infer_response> model::run(std::size_t instance, const std::vector<const infer_request*>& batch)
{
    auto& progs = m_instances.at(instance);
    std::vector<std::size_t> rows;
    std::size_t total = 0;
    for(const auto* r : batch)
    {
        rows.push_back(batched() ? static_cast<std::size_t>(r->inputs.front().shape.at(0)) : 1);
        total += rows.back();
    }
    auto pit = batched() ? progs.lower_bound(total) : progs.begin();
    if(pit == progs.end() or (not batched() and batch.size() != 1))
        throw std::runtime_error("batch of " + std::to_string(total) + " rows does not fit the model");
    std::size_t b = pit->first;
    auto& p       = pit->second;
    auto shapes   = p.get_inputs();

    parameter_map params;
    for(const auto& info : m_inputs)
    {
        const auto& s = shapes.at(info.name);
        auto find     = [&](const infer_request& r) -> const tensor& {
            for(const auto& t : r.inputs)
                if(t.name == info.name)
                    return t;
            throw std::runtime_error("input '" + info.name + "' vanished");
        };
        if(batch.size() == 1 and (b == 0 or total == b))
        {
            // the request's bytes are exactly the program's input: no copy
            params[info.name] = argument(s, const_cast<char*>(find(*batch.front()).data.data()));
            continue;
        }
        argument a{s}; // zero-filled: the padding rows
        std::size_t offset = 0;
        for(const auto* r : batch)
        {
            const auto& t = find(*r);
            if(offset + t.data.size() > s.bytes())
                throw std::runtime_error("batch larger than the program's input");
            std::memcpy(a.data() + offset, t.data.data(), t.data.size());
            offset += t.data.size();
        }
        params[info.name] = a;
    }

    auto results = p.eval(params);
    if(results.size() != m_outputs.size())
        throw std::runtime_error("the program returned " + std::to_string(results.size()) + " outputs, expected " +
                                 std::to_string(m_outputs.size()));
    for(auto& r : results)
        if(not r.get_shape().standard())
            r = r.contiguous();

    std::vector<infer_response> out(batch.size());
    std::size_t row = 0;
    for(std::size_t i = 0; i < batch.size(); i++)
    {
        const auto& req = *batch[i];
        auto& resp      = out[i];
        resp.model      = m_name;
        resp.version    = m_version;
        resp.id         = req.id;
        auto add        = [&](std::size_t k, bool binary) {
            const auto& res = results[k];
            std::size_t bytes = res.get_shape().bytes();
            std::size_t row_bytes = b > 0 ? bytes / b : bytes;
            tensor t;
            t.name   = m_outputs[k].name;
            t.type   = m_outputs[k].type;
            t.shape  = m_outputs[k].shape;
            if(b > 0)
                t.shape[0] = static_cast<std::int64_t>(rows[i]);
            t.data.assign(res.data() + row * row_bytes, rows[i] * row_bytes);
            t.binary = binary;
            resp.outputs.push_back(std::move(t));
        };
        if(req.outputs.empty())
        {
            for(std::size_t k = 0; k < m_outputs.size(); k++)
                add(k, req.binary_outputs);
        }
        else
        {
            for(const auto& o : req.outputs)
            {
                auto it = std::find_if(m_outputs.begin(), m_outputs.end(), [&](const auto& x) { return x.name == o.name; });
                add(static_cast<std::size_t>(it - m_outputs.begin()), o.binary);
            }
        }
        row += rows[i];
    }
    return out;
}

} // namespace server
} // namespace migraphx
