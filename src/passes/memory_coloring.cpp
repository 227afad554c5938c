#include "passes/memory_coloring.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/reflect.hpp>
#include <algorithm>
#include <unordered_set>

namespace migraphx {

namespace {

void note_submodule_instructions(const module& sub,
                                 instruction_ref holder,
                                 std::unordered_map<const instruction*, instruction_ref>& via,
                                 std::unordered_set<const module*>& seen)
{
    if(not seen.insert(&sub).second)
        return;
    for(auto it = sub.begin(); it != sub.end(); ++it)
    {
        via.emplace(&*it, holder);
        for(const auto* inner : it->module_inputs())
            note_submodule_instructions(*inner, holder, via, seen);
    }
}

bool is_scratch(instruction_ref ins)
{
    auto attrs = ins->get_operator().attributes();
    return attrs.is_object() and attrs.contains("scratch");
}

std::size_t align_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

struct block
{
    instruction_ref ins;
    std::size_t start  = 0;
    std::size_t end    = 0; // inclusive
    std::size_t bytes  = 0;
    std::size_t offset = 0;
};

} // namespace

buffer_readers::buffer_readers(const module& m)
{
    std::unordered_set<const instruction*> mine;
    for(auto it = m.begin(); it != m.end(); ++it)
        mine.insert(&*it);
    // Instructions of sub-modules read outer values directly; count those reads as made by the
    // instruction of m that runs the sub-module.
    std::unordered_map<const instruction*, instruction_ref> via;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        std::unordered_set<const module*> seen;
        for(const auto* sub : it->module_inputs())
            note_submodule_instructions(*sub, it, via, seen);
    }
    std::unordered_map<const instruction*, std::unordered_set<const instruction*>> listed;
    for(auto x = m.begin(); x != m.end(); ++x)
    {
        auto root = get_alias_root(x);
        auto o    = mine.count(&*root) ? root : x;
        m_owner.emplace(&*x, o);
        for(auto u : x->outputs())
        {
            instruction_ref r;
            if(mine.count(&*u))
                r = u;
            else if(via.count(&*u))
                r = via.at(&*u);
            else
                continue;
            if(r->name() == "@return")
                m_returned[&*o] = true;
            if(listed[&*o].insert(&*r).second)
                m_readers[&*o].push_back(r);
        }
    }
}

instruction_ref buffer_readers::owner(instruction_ref x) const
{
    auto it = m_owner.find(&*x);
    return it == m_owner.end() ? x : it->second;
}

const std::vector<instruction_ref>& buffer_readers::readers(instruction_ref owner) const
{
    auto it = m_readers.find(&*owner);
    return it == m_readers.end() ? m_none : it->second;
}

bool buffer_readers::returned(instruction_ref owner) const
{
    auto it = m_returned.find(&*owner);
    return it != m_returned.end() and it->second;
}

void memory_coloring::apply(module& m) const
{
    if(alignment == 0)
        MIGRAPHX_THROW("memory_coloring: alignment must be positive");
    std::unordered_map<const instruction*, std::size_t> position;
    std::size_t n = 0;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        if(it->name() == allocation_op and is_scratch(it))
            return; // planned already
        position[&*it] = n++;
    }
    buffer_readers br(m);
    std::vector<block> blocks;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        if(it->name() != allocation_op)
            continue;
        block b;
        b.ins   = it;
        b.start = position.at(&*it);
        b.end   = b.start;
        b.bytes = it->get_shape().bytes();
        for(auto r : br.readers(it))
            b.end = std::max(b.end, position.at(&*r));
        if(br.returned(it))
            b.end = n; // outputs outlive the module's run
        blocks.push_back(b);
    }
    if(blocks.empty())
        return;

    // Largest first, then earliest; each at the lowest aligned offset clear of every block placed
    // so far whose lifetime overlaps its own.
    std::vector<block*> order;
    for(auto& b : blocks)
        order.push_back(&b);
    std::stable_sort(order.begin(), order.end(), [](const block* a, const block* b) {
        return a->bytes != b->bytes ? a->bytes > b->bytes : a->start < b->start;
    });
    std::vector<const block*> placed;
    std::size_t total = 0;
    for(auto* b : order)
    {
        if(b->bytes == 0)
            continue;
        std::vector<const block*> clash;
        for(const auto* o : placed)
            if(o->start <= b->end and b->start <= o->end)
                clash.push_back(o);
        std::sort(clash.begin(), clash.end(), [](const block* x, const block* y) { return x->offset < y->offset; });
        std::size_t offset = 0;
        for(const auto* o : clash)
        {
            if(offset + b->bytes <= o->offset)
                break;
            offset = std::max(offset, align_up(o->offset + o->bytes, alignment));
        }
        b->offset = offset;
        total     = std::max(total, offset + b->bytes);
        placed.push_back(b);
    }
    total = align_up(total, alignment);

    auto scratch = m.insert_instruction(
        m.begin(),
        make_op(allocation_op, {{"shape", shape_to_value(shape{shape::uint8_type, {total}})}, {"scratch", true}}),
        {});
    for(const auto& b : blocks)
        m.replace_instruction(
            b.ins, make_op("load", {{"shape", shape_to_value(b.ins->get_shape())}, {"offset", b.offset}}), {scratch});
}

} // namespace migraphx
