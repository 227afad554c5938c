#ifndef MIGRAPHX_SERVER_MODEL_HPP
#define MIGRAPHX_SERVER_MODEL_HPP

// One version of a model: its compiled programs (per instance, per batch size), its metadata,
// request checking and the run of a batch.
#include "server/config.hpp"
#include "server/tensor.hpp"
#include <migraphx/program.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace migraphx {
namespace server {

struct tensor_info
{
    std::string name;
    migraphx::shape::type_t type = migraphx::shape::float_type;
    std::vector<std::int64_t> shape; // as the protocol's metadata: -1 for the batch dimension
};

struct load_options
{
    std::string target = "cpu"; // "cpu", "gpu" or "ref"
    std::size_t default_instances = 1;
    /// Write the compiled programs beside model.onnx (model.mxr / model_b<N>.mxr).
    bool write_cache = true;
    std::function<void(const std::string&)> log = nullptr;
};

class model
{
    public:
    /// Loads DIR/<name>/<version>/ (model.onnx, compiled once and cached beside it, or
    /// model.mxr / model_b<N>.mxr). Throws std::runtime_error naming the problem.
    static std::shared_ptr<model> load(const std::string& name, const std::string& version,
                                       const std::string& version_dir, const model_config& config,
                                       const load_options& options);

    const std::string& name() const { return m_name; }
    const std::string& version() const { return m_version; }
    const model_config& config() const { return m_config; }
    const std::vector<tensor_info>& inputs() const { return m_inputs; }
    const std::vector<tensor_info>& outputs() const { return m_outputs; }
    /// The batch sizes compiled ({0}: no batch dimension).
    std::vector<std::size_t> batch_sizes() const;
    std::size_t instance_count() const { return m_instances.size(); }
    bool batched() const { return m_config.max_batch_size > 0; }
    /// The largest batch a run takes (1 for a model without batch dimension).
    std::size_t max_rows() const;
    /// "onnx" or "mxr": what the model was loaded from.
    const std::string& source() const { return m_source; }
    std::string target_name() const { return m_target; }

    /// Checks a request against the inputs and outputs (names, datatypes, shapes); returns its
    /// rows (its batch dimension; 1 without one). Throws server_error 400.
    std::size_t check(const infer_request& r) const;

    /// Runs checked requests whose rows sum to at most max_rows() as one batch on an instance
    /// (one thread per instance at a time), padding to the smallest compiled batch size that
    /// fits, and splits the outputs back.
    std::vector<infer_response> run(std::size_t instance, const std::vector<const infer_request*>& batch);

    private:
    std::string m_name;
    std::string m_version;
    std::string m_source;
    std::string m_target;
    model_config m_config;
    std::vector<tensor_info> m_inputs;
    std::vector<tensor_info> m_outputs;
    std::vector<std::map<std::size_t, program>> m_instances; // batch size -> program
};

} // namespace server
} // namespace migraphx

#endif
