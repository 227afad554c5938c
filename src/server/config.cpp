#include "server/config.hpp"
#include "model_config.pb.h"
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace migraphx {
namespace server {

namespace {

struct collect_errors : google::protobuf::io::ErrorCollector
{
    std::string first;
    void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override
    {
        if(first.empty())
            first = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
    }
};

} // namespace

model_config parse_model_config(const std::string& text)
{
    migraphx_server::ModelConfig pb;
    google::protobuf::TextFormat::Parser parser;
    collect_errors errors;
    parser.RecordErrorsTo(&errors);
    parser.AllowUnknownField(true);
    parser.AllowUnknownExtension(true);
    if(not parser.ParseFromString(text, &pb))
        throw std::runtime_error("config.pbtxt: " + (errors.first.empty() ? std::string("syntax error") : errors.first));
    if(pb.max_batch_size() < 0)
        throw std::runtime_error("config.pbtxt: max_batch_size must not be negative");
    model_config c;
    c.max_batch_size   = static_cast<std::size_t>(pb.max_batch_size());
    c.dynamic_batching = pb.has_dynamic_batching() and c.max_batch_size > 0;
    c.max_queue_delay  = std::chrono::microseconds(pb.dynamic_batching().max_queue_delay_microseconds());
    for(auto b : pb.dynamic_batching().preferred_batch_size())
    {
        if(b <= 0 or static_cast<std::size_t>(b) > c.max_batch_size)
            throw std::runtime_error("config.pbtxt: preferred_batch_size " + std::to_string(b) +
                                     " must be between 1 and max_batch_size");
        c.preferred_batch_sizes.push_back(static_cast<std::size_t>(b));
    }
    for(const auto& g : pb.instance_group())
    {
        if(g.count() < 0)
            throw std::runtime_error("config.pbtxt: instance_group count must not be negative");
        c.instances += static_cast<std::size_t>(g.count() == 0 ? 1 : g.count());
    }
    return c;
}

model_config read_model_config(const std::string& model_dir)
{
    auto path = std::filesystem::path(model_dir) / "config.pbtxt";
    if(not std::filesystem::exists(path))
        return {};
    std::ifstream f(path);
    if(not f)
        throw std::runtime_error("cannot read " + path.string());
    std::stringstream ss;
    ss << f.rdbuf();
    return parse_model_config(ss.str());
}

std::vector<std::size_t> compiled_batch_sizes(const model_config& c)
{
    if(c.max_batch_size == 0)
        return {0};
    std::vector<std::size_t> r;
    for(std::size_t b = 1; b < c.max_batch_size; b *= 2)
        r.push_back(b);
    r.push_back(c.max_batch_size);
    r.insert(r.end(), c.preferred_batch_sizes.begin(), c.preferred_batch_sizes.end());
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    return r;
}

} // namespace server
} // namespace migraphx
