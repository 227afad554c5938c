#include "targets/gpu/early_nonzero.hpp"
#include "targets/gpu/device_sized.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/lowering.hpp"
#include "passes/pass_utils.hpp"
#include <migraphx/instruction.hpp>
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace migraphx {
namespace gpu {

namespace {

const ref_fallback* fallback_of(instruction_ref ins) { return ins->get_operator().any_cast<ref_fallback>(); }

bool is_alloc(instruction_ref ins) { return ins->name() == "hip::hip_allocate_memory"; }

/// What may move earlier: pure device work on its own output buffer (a generated kernel), a
/// view, an allocation (placed just before its user).
bool movable(instruction_ref ins)
{
    const auto& n = ins->name();
    if(not ins->module_inputs().empty())
        return false;
    if(n == "hip::hip_allocate_memory")
        return not ins->get_operator().attributes().contains("scratch");
    // a kernel writing a fresh buffer of its own (not a view into one another op also writes)
    if(n == "gpu::code_object")
        return not ins->inputs().empty() and is_alloc(ins->inputs().back());
    return device_view(*ins);
}

struct mover
{
    module& m;
    std::unordered_map<const instruction*, std::size_t> order; // position in m
    instruction_ref last_placed;                               // keeps the moved chains in order
    bool placed_any = false;
    std::unordered_set<const instruction*> fixed; // up to the first nonzero: stays where it is

    mover(module& mm, instruction_ref first) : m(mm)
    {
        renumber();
        for(auto it = m.begin(); it != std::next(first); ++it)
            fixed.insert(&*it);
    }

    void renumber()
    {
        order.clear();
        std::size_t i = 0;
        for(auto it = m.begin(); it != m.end(); ++it)
            order[&*it] = i++;
    }
    std::size_t at(instruction_ref x) const { return order.at(&*x); }

    /// ins moved to just after `after` (a copy inserted there, then the original replaced).
    instruction_ref move_after(instruction_ref ins, instruction_ref after)
    {
        auto copy = m.insert_instruction(std::next(after), ins->get_operator(), ins->inputs());
        m.replace_instruction(ins, copy);
        m.remove_instruction(ins);
        renumber();
        return copy;
    }

    /// ins's allocation inputs moved to just before ins (an allocation another instruction before
    /// ins uses stays).
    void allocs_before(instruction_ref ins)
    {
        for(auto x : ins->inputs())
        {
            if(not is_alloc(x) or not movable(x) or at(x) + 1 == at(ins))
                continue;
            auto users = x->outputs();
            if(std::all_of(users.begin(), users.end(), [&](instruction_ref u) { return at(u) >= at(ins); }))
                move_after(x, std::prev(ins));
        }
    }

    /// The latest of ins's inputs other than allocations (which follow their user), and the last
    /// chain this pass placed where that is later and still before ins.
    std::optional<instruction_ref> anchor(instruction_ref ins) const
    {
        std::optional<instruction_ref> a;
        for(auto x : ins->inputs())
            if(not is_alloc(x) and (not a or at(x) > at(*a)))
                a = x;
        if(placed_any and at(last_placed) < at(ins) and (not a or at(last_placed) > at(*a)))
            a = last_placed;
        return a;
    }

    /// ins and the movable work it reads, each moved to just after what it reads: the result is
    /// ins's instruction now.
    instruction_ref hoist(instruction_ref ins)
    {
        if(fixed.count(&*ins) > 0 or not movable(ins) or is_alloc(ins))
            return ins;
        auto inputs = ins->inputs();
        for(auto x : inputs)
            hoist(x); // replace_instruction keeps ins's inputs pointing at the moved ones
        auto a = anchor(ins);
        if(a and at(*a) + 1 < at(ins))
        {
            ins = move_after(ins, *a);
            allocs_before(ins);
        }
        if(not placed_any or at(ins) > at(last_placed))
            last_placed = ins;
        placed_any = true;
        return ins;
    }
};

} // namespace

void early_nonzero::apply(module& m) const
{
    if(m.name() != "main")
        return;
    // data-dependent: a fallback of nonzero, NMS... (ref_fallback::attributes), a finish, and
    // all computed from them
    auto dd = pass_utils::data_dependent(m);
    std::vector<instruction_ref> todo;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        const auto* f = fallback_of(it);
        if(f == nullptr or f->op.name() != "nonzero" or not f->rows_on_device or not f->has_output or
           it->inputs().size() != 2)
            continue;
        auto x = it->inputs().front();
        if(dd.count(&*x) > 0 or
           not has_sized_device_op(f->op, {x->get_shape()}, it->get_shape()) or
           not nonzero_kernel::takes(x->get_shape(), it->get_shape()))
            continue;
        todo.push_back(it);
    }
    if(todo.empty())
        return;
    // The chains of the later nonzeros move up to the first one: their starts run back to back,
    // and the first finish waits once for all of them.
    mover mv{m, todo.front()};
    std::size_t slot = 0;
    for(auto nz : todo)
    {
        auto x   = mv.hoist(nz->inputs().front());
        auto buf = nz->inputs().back();
        auto a   = mv.anchor(nz); // x, or the last chain placed after it
        auto start = m.insert_instruction(std::next(a.value_or(x)), operation{nonzero_start{slot}}, {x, buf});
        mv.renumber();
        mv.allocs_before(start);
        mv.last_placed = start;
        mv.placed_any  = true;
        m.replace_instruction(nz, operation{nonzero_finish{slot}}, {start});
        mv.renumber();
        slot++;
    }
}

} // namespace gpu
} // namespace migraphx
