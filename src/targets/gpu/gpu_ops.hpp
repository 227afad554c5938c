#ifndef MIGRAPHX_GPU_GPU_OPS_HPP
#define MIGRAPHX_GPU_GPU_OPS_HPP

// The gpu target's operations. An op that writes a result takes its output buffer as its last
// input (a hip::hip_allocate_memory, a load of the scratch buffer after memory_coloring, or an
// output parameter) and returns it (output_alias = last input). Names follow the spec's printing.
// Library state (cuBLASLt descriptors, cuDNN algorithm, loaded kernels, device copies of
// literals) is built once in finalize at the end of compile and shared by copies of the op.

#include "ir/actual_sizes.hpp"
#include "ops/allocation.hpp"
#include <migraphx/argument.hpp>
#include <migraphx/context.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/operation.hpp>
#include <migraphx/shape.hpp>
#include <atomic>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace migraphx {
namespace gpu {

inline std::ptrdiff_t last_input(const std::vector<shape>& inputs)
{
    return static_cast<std::ptrdiff_t>(inputs.size()) - 1;
}

/// Throws "<name>: expects n inputs, got m" unless there are n.
void check_inputs(const std::string& name, const std::vector<shape>& inputs, std::size_t n);

/// Device memory of `shape`. The scratch buffer (scratch=1, made by memory_coloring) is
/// allocated once, at finalize; any other allocation is fresh memory each run.
struct hip_allocate : allocation_fields
{
    std::string name() const { return "hip::hip_allocate_memory"; }
    void print_attributes(std::ostream& os) const;
    shape compute_shape(const std::vector<shape>& inputs) const { return allocated_shape(name(), inputs); }
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::shared_ptr<char> buffer;
};

/// A literal copied to the device once, at finalize. The op holds the literal (no @literal
/// input, so it prints as the spec shows it); a saved program stores it as @literal's bytes
/// (src/serialize/op_serializer.hpp, registered in hip_ops.cpp).
struct hip_copy_literal
{
    std::string id;
    literal value_;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.id, "id");
    }
    std::string name() const { return "hip::hip_copy_literal"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::shared_ptr<char> buffer;
};

/// (host x, device buffer) -> the buffer holding x.
struct hip_copy_to_gpu
{
    std::string name() const { return "hip::copy_to_gpu"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const { return last_input(inputs); }
};

/// (device x) -> a fresh host copy of x (its shape and strides: the argument's own shape, which
/// for a data-dependent result is smaller than the instruction's).
struct hip_copy_from_gpu
{
    shape s{};
    std::string id;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.s, "shape");
        f(self.id, "id");
    }
    std::string name() const { return "hip::copy_from_gpu"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
};

/// Waits for the stream; returns its first input.
struct hip_sync_stream
{
    std::string name() const { return "hip::sync_stream"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
};

/// (device x, device buffer of x's shape) -> the buffer holding x (standard x: one memcpy); a
/// data-dependent x smaller than the buffer fills its front and keeps its own shape.
struct hip_copy
{
    std::string name() const { return "hip::copy"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const { return last_input(inputs); }
};

struct loaded_kernel;

/// A kernel of a code_object's instruction (the same parameters) that another device can run.
struct kernel_variant
{
    std::string symbol_name;
    std::size_t global = 0, local = 256, shared = 0, blocks_per_sm = 0;
    std::string source;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.symbol_name, "symbol_name");
        f(self.global, "global");
        f(self.local, "local");
        f(self.shared, "shared");
        f(self.blocks_per_sm, "blocks_per_sm");
        f(self.source, "source");
    }
};

/// A kernel generated as CUDA C++ and compiled with NVRTC at finalize (cached on disk). The cubin
/// is kept (`binary`, for sm `arch`): a saved program stores it, and a loaded one's finalize loads
/// it instead of compiling, unless the device is of another architecture or the driver refuses
/// the binary, in which case the source is compiled as at compile time.
struct code_object
{
    std::string symbol_name;
    std::size_t global = 0;
    std::size_t local  = 256;
    std::string source;
    std::string arch; // "sm_90": the architecture `binary` was compiled for ("" before finalize)
    std::size_t shared        = 0; // dynamic shared memory a block, bytes
    std::size_t blocks_per_sm = 0; // grid cap an SM (a persistent kernel); 0: 32 an SM
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.symbol_name, "symbol_name");
        f(self.global, "global");
        f(self.local, "local");
        f(self.source, "source");
        f(self.arch, "arch");
        // absent from files saved before they existed: 0, as those kernels were launched
        f(self.shared, "shared");
        f(self.blocks_per_sm, "blocks_per_sm");
        f(self.fallback, "fallback");
    }
    /// Where the kernel needs sm_90a (the Hopper attention kernel), the kernel any device runs,
    /// so that a program compiled on an sm_90 device and saved loads on another (at most one).
    std::vector<kernel_variant> fallback;
    /// On a device that cannot run this kernel, takes its fallback's place (and drops the binary);
    /// true if it did. finalize calls it.
    bool use_fallback_for(int sm_major, int sm_minor);
    std::string name() const { return "gpu::code_object"; }
    void print_attributes(std::ostream& os) const;
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const { return last_input(inputs); }
    /// A kernel that takes its row count at run time (codegen.hpp: generate_pointwise's
    /// rows_at_run_time): its threads a row. Not an attribute: only device ops made at finalize
    /// (ref_fallback's) have one, and they are never saved.
    std::size_t row_elements = 0;
    /// Such a kernel's launch for the output's first `rows` rows (compute takes them all).
    argument compute_rows(context& ctx, const std::vector<argument>& args, std::size_t rows) const;
    std::shared_ptr<loaded_kernel> kernel;
    std::size_t binary_size = 0;
    /// The cubin (uint8 bytes; in a loaded program, the mapped file's). Not an attribute: a
    /// saved program stores it as literal bytes (op_serializer.hpp, registered in code_object.cpp).
    literal binary;
    /// Kernels with more inputs than kernel parameters allow read their input pointers from
    /// this device table (codegen.hpp: inputs_in_table), refreshed when the pointers change.
    struct pointer_table;
    std::shared_ptr<pointer_table> table;
};

/// (a {batch..., M, K}, b {batch..., K, N}[, bias], out) through cuBLASLt: layouts and transposes
/// are read from the inputs' strides; the algorithm is chosen at finalize. epilogue "bias",
/// "relu_bias" or "gelu_bias" (one product, or a strided batch with a bias per batch) adds bias
/// {M, N} with strides {0, 1} (one value per column, as a broadcast N-vector) inside cuBLASLt,
/// then relu / GELU (cuBLASLt's tanh form); "gelu" takes no bias input. An fp8 product may write
/// fp8e4m3fn itself: d_scale times the result after the epilogue, rounded to e4m3 (cuBLASLt's D
/// scale), its bias half and no residual; the next product reads it without a cast kernel.
/// `algo` keeps the algorithms finalize chose (for 16-byte aligned and for other pointers: two
/// cublasLtMatmulAlgo_t, 64 bytes each, as 16 words); finalize reuses them when they are given
/// and cublasLtMatmulAlgoCheck accepts them for the problem (a loaded program), else asks the
/// heuristic. Not printed.
struct gemm
{
    float alpha = 1;
    float beta  = 0;
    std::string epilogue; // "", "bias", "relu_bias", "gelu" or "gelu_bias" (cuBLASLt's tanh GELU)
    bool has_bias() const { return epilogue == "bias" or epilogue == "relu_bias" or epilogue == "gelu_bias"; }
    bool residual = false; // an addend input (the output's lens, packed) after the bias: C of beta = 1
    float d_scale = 1;     // an fp8e4m3fn output's scale (1 / the quantize's scale); 1 otherwise
    std::vector<std::uint64_t> algo;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.alpha, "alpha");
        f(self.beta, "beta");
        f(self.epilogue, "epilogue");
        f(self.residual, "residual");
        f(self.d_scale, "d_scale");
        f(self.algo, "algo");
    }
    std::string name() const { return "gpu::gemm"; }
    void print_attributes(std::ostream& os) const; // epilogue only when there is one
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const { return last_input(inputs); }
    /// Whether cuBLASLt can read this operand's matrices as they lie (else copy it first).
    static bool supported_operand(const shape& s);
    /// int8 products (int8 x int8 -> int32): whether a can be read as it lies (row-major) and
    /// whether b can (column-major, i.e. stored as b's transpose), leading dimensions and batch
    /// strides multiples of 4; else lowering copies them into those layouts.
    static bool int8_a_ready(const shape& a);
    static bool int8_b_ready(const shape& b);
    /// fp8 products (fp8e4m3fn x fp8e4m3fn -> half or float): the same layouts, leading
    /// dimensions and batch strides multiples of 16.
    static bool fp8_a_ready(const shape& a);
    static bool fp8_b_ready(const shape& b);
    /// Whether b (of the product's output shape out) is a per-column bias the epilogue can add
    /// (broadcast over the rows and any batches; batches need one_product as well).
    static bool supported_bias(const shape& b, const shape& out);
    /// Whether a x b is one matrix product for cuBLASLt: no batches, or batches of a whose rows
    /// follow on from each other times a b broadcast over them (a linear layer on [batch, seq,
    /// features]), which finalize folds into the rows. Epilogues and residuals need this.
    static bool one_product(const shape& a, const shape& b);
    struct plan;
    std::shared_ptr<plan> cache;
};

/// (x, w, out) through cuDNN; padding is begin..., end... (symmetric only). finalize measures
/// the legacy API's algorithms (solution_id) and, for half, the backend graph API's engine
/// configurations (cudnn_graph.hpp) and keeps the fastest: `engine` names the chosen engine
/// configuration ("" when the legacy algorithm won or the graph API is off). A loaded program's
/// finalize rebuilds what they name without measuring.
struct convolution
{
    std::vector<std::size_t> padding;
    std::vector<std::size_t> stride;
    std::vector<std::size_t> dilation;
    std::int64_t group        = 1;
    std::int64_t padding_mode = 0;
    std::int64_t solution_id  = -1;
    std::string engine;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.group, "group");
        f(self.padding_mode, "padding_mode");
        f(self.solution_id, "solution_id");
        f(self.engine, "engine");
    }
    std::string name() const { return "gpu::convolution"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const { return last_input(inputs); }
    /// The choices the op runs with: its fields, unless a loaded op was completed after finalize
    /// stored it (gpu_context::defer) and cuDNN refused a saved choice: then what replaced it.
    /// Printing and saving (.mxr) show these.
    std::int64_t current_solution_id() const;
    std::string current_engine() const;
    /// The legacy algorithm's workspace bytes the op runs with (-1: not known yet). Saved beside
    /// the attributes (not one of them), so that a load on the same device and libraries need not
    /// ask cuDNN (gpu_context::saved_choices_trusted).
    std::int64_t current_workspace() const;
    std::int64_t saved_workspace = -1; // a loaded op's, from the file
    void print_attributes(std::ostream& os) const;
    struct plan;
    std::shared_ptr<plan> cache;
};

/// (x, w, bias[, z], out): relu(conv(x, w) + bias [+ z]) in one cuDNN call
/// (cudnnConvolutionBiasActivationForward, or for half a backend graph conv -> add -> [add ->]
/// relu where one is faster): a convolution with its bias, residual add and relu, as ResNet's
/// blocks end. bias: one value per output channel (a broadcast {N, K, H, W} with
/// strides {0, 1, 0, 0}); z: the output's shape and layout.
struct conv_bias_relu : convolution
{
    bool residual = false;
    /// false: conv(x, w) + bias only (no residual then), as a downsample branch ends before the
    /// add it feeds; legacy fallback: cudnnConvolutionForward, then cudnnAddTensor.
    bool relu = true;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        convolution::reflect(self, f);
        f(self.residual, "residual");
        f(self.relu, "relu");
    }
    std::string name() const { return "gpu::conv_bias_relu"; }
    void print_attributes(std::ostream& os) const;
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const { return last_input(inputs); }
    struct epilogue;
    std::shared_ptr<epilogue> fused;
    /// Whether b is a per-channel bias for output shape out.
    static bool supported_bias(const shape& b, const shape& out);
};

/// (x, w, out) transposed convolution (ONNX ConvTranspose) as cuDNN's backward-data of the
/// convolution from out to x: x {N, C, in...}, w {C, K/group, kernel...}; symmetric padding.
/// (x, w[, bias][, z], out): ops/int8_convolution.cpp's op as one cuDNN int8 graph
/// (int8_convolution.cpp): x int8 NHWC, w int8 KRSC, out and z NHWC (int8, half or float),
/// bias float {K}; z is multiplied by z_scale where that is not 1. engine: the chosen engine configuration (empty: measured at finalize).
struct int8_convolution
{
    std::vector<std::size_t> padding, stride, dilation;
    std::vector<float> scales;
    bool bias = false, residual = false, relu = false;
    float z_scale = 1;
    std::string engine;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.scales, "scales");
        f(self.bias, "bias");
        f(self.residual, "residual");
        f(self.relu, "relu");
        f(self.z_scale, "z_scale");
        f(self.engine, "engine");
    }
    std::string name() const { return "gpu::int8_convolution"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const { return last_input(inputs); }
    struct state;
    std::shared_ptr<state> cache;
};

struct convolution_backwards
{
    std::vector<std::size_t> padding;
    std::vector<std::size_t> stride;
    std::vector<std::size_t> dilation;
    std::int64_t group       = 1;
    std::int64_t solution_id = -1;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.padding, "padding");
        f(self.stride, "stride");
        f(self.dilation, "dilation");
        f(self.group, "group");
        f(self.solution_id, "solution_id");
    }
    std::string name() const { return "gpu::convolution_backwards"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const { return last_input(inputs); }
    struct plan;
    std::shared_ptr<plan> cache;
};

struct sized_device_op; // device_sized.hpp
struct int64_writer;    // device_sized.hpp

/// Any other op: its inputs are copied to the host, its reference compute runs there, and the
/// result is copied into the output buffer (or, for a tuple result, into fresh device memory).
/// A data-dependent result (fewer elements than the static shape) fills the front of the
/// buffer and keeps its own shape, as on ref. Correct for every op, fast for none.
struct ref_fallback
{
    operation op;
    module_ref mod  = nullptr; // the op's sub-module (a `pointwise` body), run on the host too
    bool has_output = true;    // false for tuple results (no output buffer input)
    /// A device form may run it (the lowering's choice, kept in a saved program): where its
    /// data-dependent inputs hold its result's rows, a device op at the declared size
    /// (device_rows.hpp); for the ops of device_sized.hpp, kernels at the run's sizes.
    bool rows_on_device = false;
    /// The inputs whose producer notes its value on the host every run (host_values.hpp): read
    /// from that note, not copied back from the device (a wait). The lowering's choice, saved.
    std::vector<std::size_t> known_inputs;
    /// A small int64 result (at most 8 values: a run-time size) computed from values the host
    /// knows: computed on the host with no copy back, noted, written to the device by a launch
    /// (no wait). Set by the lowering, saved.
    bool host_value = false;
    /// Of those, one whose device copy nothing reads (every reader takes the note: host ops,
    /// Shape, the sizes of Expand/Reshape, topk's k): computed and noted only, no launch. Set by
    /// the lowering (mark_host_only_values), saved.
    bool host_only = false;
    std::string name() const { return "gpu::ref::" + op.name(); }
    /// {"dynamic_output": true} where its op's result size depends on the data (nonzero, NMS...),
    /// so that pass_utils::data_dependent sees the lowered module as it saw the op; nothing else
    /// of the op's (a host fallback is not "pointwise", whatever its op is).
    value attributes() const;
    void print_attributes(std::ostream& os) const
    {
        os << op.attribute_string()
           << (device ? "{rows on device}" : (sized ? "{on device}" : (host_value ? "{size on host}" : "")));
    }
    shape compute_shape(const std::vector<shape>& inputs) const;
    /// Keeps the inputs' declared shapes (see actual_output); makes the device op where
    /// rows_on_device.
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const
    {
        return has_output ? last_input(inputs) : -1;
    }
    /// The op and output shape for the host inputs: op at out, or where an input holds fewer
    /// elements than declared (a data-dependent result), what eval computes with for them
    /// (ir/actual_sizes.hpp).
    sized_op actual_output(const shape& out, const std::vector<argument>& host) const;
    /// What compute runs between its copies, on host arguments (no device): the op (and its
    /// sub-module, each instruction at the size of what it got, as eval runs one) at
    /// actual_output's shape. Needs in_shapes (finalize).
    argument compute_host(const shape& out, const std::vector<argument>& host) const;
    std::vector<shape> in_shapes; // declared inputs (finalize)
    std::shared_ptr<operation> device; // the device op for rows_on_device (finalize), finalized
    /// The same at fewer rows (device_rows.hpp's fewer_row_counts, ascending): a run with fewer
    /// actual rows takes the first that holds them. Finalized.
    std::vector<std::pair<std::size_t, std::shared_ptr<operation>>> device_at_rows;
    /// Whether a generated elementwise device op computes only the actual rows (finalize: off under
    /// MIGRAPHX_DISABLE_FEWER_ROWS=1, as device_at_rows is then empty).
    bool actual_rows_only = true;
    std::shared_ptr<const sized_device_op> sized; // its device_sized.hpp form (finalize)
    std::shared_ptr<const int64_writer> writer;   // host_value's launch (finalize)
    /// Runs that took the device op (the rest ran on the host): what a test or a trace asks.
    std::shared_ptr<std::atomic<std::size_t>> device_runs = std::make_shared<std::atomic<std::size_t>>(0);
    /// Of those, the runs that took one of device_at_rows.
    std::shared_ptr<std::atomic<std::size_t>> fewer_rows_runs = std::make_shared<std::atomic<std::size_t>>(0);
    /// Inputs read from a host note instead of copied back (known_inputs).
    std::shared_ptr<std::atomic<std::size_t>> noted_reads = std::make_shared<std::atomic<std::size_t>>(0);
    private:
    /// The device op's run where the actual sizes are its front rows (else nothing).
    std::optional<argument> compute_rows(context& ctx, const std::vector<argument>& args) const;
    /// Input i on the host: its noted value where known_inputs allows, else a copy (a wait).
    argument host_input(context& ctx, const std::vector<argument>& args, std::size_t i) const;
};

struct count_slot;     // context.hpp
struct nonzero_kernel; // device_sized.hpp

/// nonzero split in two by gpu::early_nonzero, for an input of static shape: (x, buffer) ->
/// the buffer, its front holding x's nonzero indices ({rank, count}); the count is copied to the
/// host and an event recorded after it, no wait. Replayable: in a CUDA graph the copy and the
/// event are nodes. `slot` names the count slot (gpu_context::count_slot_for) it shares with its
/// gpu::nonzero_finish.
struct nonzero_start
{
    std::size_t slot = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.slot, "slot");
    }
    std::string name() const { return "gpu::nonzero_start"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const { return last_input(inputs); }
    std::shared_ptr<const nonzero_kernel> kernel; // finalize
    std::shared_ptr<count_slot> count;            // finalize
};

/// (started buffer) -> the nonzero result at its actual shape {rank, count}: waits for the
/// start's event (by then usually long passed: the starts run early, so a detector's per-class
/// nonzeros wait once, not once a class) and reads the count.
struct nonzero_finish
{
    std::size_t slot = 0;
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.slot, "slot");
    }
    std::string name() const { return "gpu::nonzero_finish"; }
    value attributes() const { return {{"dynamic_output", true}}; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs);
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
    std::ptrdiff_t output_alias(const std::vector<shape>&) const { return 0; }
    std::shared_ptr<count_slot> count; // finalize
};

/// (device x) -> a host copy (for programs that run on the host: see lowering.hpp).
struct hip_to_host
{
    std::string name() const { return "hip::to_host"; }
    shape compute_shape(const std::vector<shape>& inputs) const;
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const;
};

/// Host copy of a device argument (any shape, tuples included), after the stream finished.
argument copy_to_host(context& ctx, const argument& a);
/// Device copy (fresh memory, standard layout) of a host argument, tuples included; made on the
/// context's stream and waited for.
argument copy_to_device(context& ctx, const argument& a);

} // namespace gpu
} // namespace migraphx

#endif
