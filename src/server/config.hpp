#ifndef MIGRAPHX_SERVER_CONFIG_HPP
#define MIGRAPHX_SERVER_CONFIG_HPP

// A model's configuration: Triton's config.pbtxt (protobuf text format, model_config.proto holds
// the fields read; the rest is skipped).
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace migraphx {
namespace server {

struct model_config
{
    /// 0: the model's inputs have no batch dimension and requests run one at a time.
    std::size_t max_batch_size = 0;
    /// dynamic_batching { } present (and max_batch_size > 0): requests are batched.
    bool dynamic_batching = false;
    std::chrono::microseconds max_queue_delay{0};
    /// dynamic_batching { preferred_batch_size: [...] }: extra batch sizes to compile.
    std::vector<std::size_t> preferred_batch_sizes;
    /// The sum of instance_group counts; 0 when not given (the server's --instances then).
    std::size_t instances = 0;
};

/// Parses config.pbtxt text; throws std::runtime_error naming the line of a syntax error or a
/// bad value.
model_config parse_model_config(const std::string& text);
/// Reads DIR/config.pbtxt if present (the defaults otherwise).
model_config read_model_config(const std::string& model_dir);

/// The batch sizes a batching model is compiled for: 1, 2, 4, ... below max_batch_size, the
/// preferred sizes and max_batch_size itself, sorted. {0} (one program, no batch dimension)
/// when max_batch_size is 0.
std::vector<std::size_t> compiled_batch_sizes(const model_config& c);

} // namespace server
} // namespace migraphx

#endif
