#ifndef MIGRAPHX_IR_LAST_USE_HPP
#define MIGRAPHX_IR_LAST_USE_HPP
// When a run may drop each result: right after the last instruction that reads it. Dropping
// results early lets the target's allocator hand their memory to the next result while it is
// still in cache (the cpu target's buffer pool), instead of every result of a run staying alive
// to its end (ResNet-50: ~100 MB touched per run, none of it warm).

#include <migraphx/module.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <unordered_map>
#include <vector>

namespace migraphx {

/// For each position p of m (in instruction order), the instructions whose results nothing reads
/// after the instruction at p. Results read from other modules (the sub-modules of If or Loop
/// read outer values directly), results nothing reads (a module's last value) and returned
/// results are never listed; nor is anything in a module that runs sub-modules.
std::vector<std::vector<const instruction*>> last_use_points(const module& m);

/// What eval needs to keep a run's results in a vector by position instead of a map by
/// instruction (a run of the cpu target's LSTM evaluates ~800 instructions, most of them views):
/// the positions to drop after each instruction (last_use_points), each instruction's inputs and
/// where they are, and the module's parameters.
struct last_use_table
{
    static constexpr std::size_t outside = static_cast<std::size_t>(-1); // an input from another module
    /// The instructions the table was made for, in order (a compiled module is not meant to
    /// change, but eval checks as it goes that one changed anyway is not run by a stale table).
    std::vector<const instruction*> order;
    std::uint64_t edits = 0; // the module's edits() when the table was made
    std::unordered_map<const instruction*, std::size_t> position; // in order
    /// Every instruction's inputs one after another, those of position p from input_begin[p] to
    /// input_begin[p + 1]; with each input's position (outside: another module's value).
    std::vector<const instruction*> input_list;
    std::vector<std::size_t> input_pos;
    std::vector<std::size_t> input_begin;
    std::vector<std::vector<std::size_t>> release;          // per position: what to drop after it
    std::unordered_map<const instruction*, std::size_t> last; // each dropped one: where
    std::vector<std::pair<std::string, shape>> parameters; // the module's, found once (each is checked a run)
};
last_use_table make_last_use_table(const module& m);

/// The tables of a compiled program's modules, each made on its first run, so that a run does not
/// hash its way through the module. Safe to use from several threads: a table is never changed,
/// only dropped (clear, where eval found one stale) and made again.
class last_use_cache
{
    public:
    std::shared_ptr<const last_use_table> of(const module& m);
    void clear();

    private:
    std::mutex m_mutex;
    std::unordered_map<const module*, std::shared_ptr<const last_use_table>> m_tables;
};

} // namespace migraphx

#endif
