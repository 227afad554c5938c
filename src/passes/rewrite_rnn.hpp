#ifndef MIGRAPHX_PASSES_REWRITE_RNN_HPP
#define MIGRAPHX_PASSES_REWRITE_RNN_HPP

#include <migraphx/instruction.hpp>
#include <migraphx/module.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace migraphx {

/// rnn, gru and lstm ops become their recurrence unrolled over the sequence: one dot projects the
/// whole input sequence, then each step adds its recurrent dot and applies the gates as
/// elementwise ops (which fuse_pointwise then fuses). For targets without a recurrent kernel (gpu),
/// and on cpu for what its oneDNN kernel does not take.
///
/// Left as they are (they run as the reference op): ops with a sequence_lens input that is not a
/// constant holding the full length for every row (rows that stop early), sequences longer than
/// 4096 steps, and ops whose tuple is used other than through get_tuple_elem. The replaced ops
/// are left for dead_code_elimination.
struct rewrite_rnn
{
    /// Ops for which this returns true are kept (a target's own kernel takes them).
    std::function<bool(instruction_ref)> keep = nullptr;

    std::string name() const { return "rewrite_rnn"; }
    void apply(module& m) const;
};

/// Whether rewrite_rnn can unroll ins (an rnn, gru or lstm instruction).
bool can_unroll_rnn(instruction_ref ins);

/// The sequence lengths of ins (an rnn, gru or lstm instruction): empty where its sequence_lens
/// input is absent (every row the whole sequence), the constant's values where it is a constant,
/// nothing where they are known only at run time. For the targets' keep predicates too.
std::optional<std::vector<std::int64_t>> constant_sequence_lengths(instruction_ref ins);

/// Whether ins's tuple is read only through get_tuple_elem.
bool read_by_elements(instruction_ref ins);

} // namespace migraphx

#endif
