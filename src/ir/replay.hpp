#ifndef MIGRAPHX_IR_REPLAY_HPP
#define MIGRAPHX_IR_REPLAY_HPP

// Record once, replay after: a run of consecutive instructions whose work the context can record
// (context::replayable: on gpu, kernels and library calls on fixed memory) is recorded on its
// second run and from then on replayed as one unit (a CUDA graph), skipping per-instruction host
// work. A recording is valid for the data pointers and shapes of the segment's inputs from outside
// it (parameters, copies in); other inputs get another recording (a few are kept per segment).
// The first run of a segment is always plain, so one-time work (lazy loading, uploads) is done
// before anything is recorded. An instruction whose work cannot be recorded (its call fails while
// recording) is left out of the segments from the next run on, and the rest recorded around it.
// A segment that cannot be recorded otherwise runs plainly from then on, as
// does one whose inputs move every run (three recordings and not one replayed: e.g. a host
// fallback before it that returns fresh memory each run).

#include <migraphx/argument.hpp>
#include <migraphx/context.hpp>
#include <migraphx/module.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace migraphx {

struct replay_segment
{
    instruction_ref begin;
    instruction_ref end; // one past the last
    /// Instructions outside the segment whose results it reads, each once.
    std::vector<instruction_ref> inputs;
    /// Its instructions whose results something outside it reads (or the module's last one):
    /// all a run hands back, so that a replay copies a few results, not one per instruction.
    std::vector<instruction_ref> outputs;
};

/// The maximal runs of at least `min_size` consecutive replayable instructions of m, leaving
/// out the `excluded` ones.
std::vector<replay_segment> find_replay_segments(const module& m,
                                                 const context& ctx,
                                                 std::size_t min_size = 2,
                                                 const std::unordered_set<const instruction*>& excluded = {});

/// Recordings of one program's segments (each program has its own; a copy starts empty).
class replay_cache
{
    public:
    /// Segments of m, found once, and again (its recordings dropped) where m changed since.
    const std::vector<replay_segment>& segments(const module& m, const context& ctx);

    using lookup_fn = std::function<const argument&(instruction_ref)>;
    using step_fn   = std::function<argument(instruction_ref)>; // computes one instruction
    struct outcome
    {
        /// The results of the segment's outputs.
        std::vector<std::pair<const instruction*, argument>> results;
        /// Replayed: `step` ran for none of its instructions.
        bool replayed = false;
    };
    /// Runs the segment: replayed if a recording fits its inputs, else computed by `step` (and
    /// recorded, on its second run).
    outcome run(const replay_segment& seg, context& ctx, const lookup_fn& lookup, const step_fn& step);

    /// How many times a recording was replayed / made / failed (for tests and tracing).
    std::size_t replays = 0, recordings = 0, failures = 0;

    private:
    struct recording
    {
        std::vector<const void*> pointers;
        std::vector<shape> shapes;
        std::shared_ptr<void> handle;
        std::vector<std::pair<const instruction*, argument>> results; // the segment's outputs
    };
    struct entry
    {
        std::size_t runs = 0;
        std::size_t made = 0, hits = 0;
        bool failed      = false;
        std::vector<recording> recordings; // most recently used first
    };
    struct found_segments
    {
        std::uint64_t edits = 0; // the module's edits() when they were found
        std::vector<replay_segment> segments;
        /// Each segment's first instruction, the key of its recordings: kept as pointers because
        /// a changed module's segment iterators may name removed instructions.
        std::vector<const instruction*> keys;
    };
    std::unordered_map<const module*, found_segments> m_segments;
    /// Instructions whose recording failed; segments are found again without them.
    std::unordered_set<const instruction*> m_excluded;
    bool m_refind = false;
    std::unordered_map<const instruction*, entry> m_entries;
    std::mutex m_mutex;
};

} // namespace migraphx

#endif
