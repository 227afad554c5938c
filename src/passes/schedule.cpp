#include "passes/schedule.hpp"
#include <migraphx/errors.hpp>
#include <algorithm>
#include <limits>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include "passes/memory_coloring.hpp"
#include "passes/pass_utils.hpp"

namespace migraphx {

namespace {

using ins_set = std::unordered_set<const instruction*>;

/// Who owns how many bytes and who reads them; independent of the order of the module.
struct memory_model
{
    buffer_readers br;
    std::unordered_map<const instruction*, std::size_t> own;
    std::unordered_map<const instruction*, std::vector<instruction_ref>> reads; // owners read

    explicit memory_model(const module& m) : br(m)
    {
        for(auto x = m.begin(); x != m.end(); ++x)
        {
            if(br.owner(x) != x)
                continue;
            if(not pass_utils::is_builtin(x))
                own[&*x] = x->get_shape().bytes();
            for(auto r : br.readers(x))
                reads[&*r].push_back(x);
        }
    }
    std::size_t bytes(instruction_ref x) const
    {
        auto it = own.find(&*x);
        return it == own.end() ? 0 : it->second;
    }
    const std::vector<instruction_ref>& owners_read_by(instruction_ref x) const
    {
        static const std::vector<instruction_ref> none;
        auto it = reads.find(&*x);
        return it == reads.end() ? none : it->second;
    }
    /// Readers other than @return.
    std::size_t reader_count(instruction_ref o) const
    {
        const auto& rs = br.readers(o);
        return std::count_if(rs.begin(), rs.end(), [](instruction_ref r) { return r->name() != "@return"; });
    }
};

std::size_t peak_of(const std::vector<instruction_ref>& order, const memory_model& mm)
{
    std::unordered_map<const instruction*, std::size_t> at, last;
    for(std::size_t i = 0; i < order.size(); i++)
    {
        at[&*order[i]] = i;
        for(auto o : mm.owners_read_by(order[i]))
            last[&*o] = i;
    }
    std::size_t live = 0, peak = 0;
    for(std::size_t i = 0; i < order.size(); i++)
    {
        auto x = order[i];
        live += mm.bytes(x);
        peak = std::max(peak, live);
        for(auto o : mm.owners_read_by(x))
            if(not mm.br.returned(o) and last.at(&*o) == i and at.at(&*o) < i)
                live -= mm.bytes(o);
        if(mm.br.readers(x).empty())
            live -= mm.bytes(x); // nobody reads it: gone at once
    }
    return peak;
}

std::vector<instruction_ref> current_order(const module& m)
{
    std::vector<instruction_ref> r;
    for(auto it = m.begin(); it != m.end(); ++it)
        r.push_back(it);
    return r;
}

void collect_outer_inputs(const module& sub,
                          const ins_set& mine,
                          std::unordered_set<const module*>& seen_mods,
                          std::vector<instruction_ref>& out)
{
    if(not seen_mods.insert(&sub).second)
        return;
    for(auto it = sub.begin(); it != sub.end(); ++it)
    {
        for(auto in : it->inputs())
            if(mine.count(&*in))
                out.push_back(in);
        for(const auto* inner : it->module_inputs())
            collect_outer_inputs(*inner, mine, seen_mods, out);
    }
}

struct scheduler
{
    const module& m;
    const memory_model& mm;
    std::unordered_map<const instruction*, std::size_t> pos;
    std::unordered_map<const instruction*, std::vector<instruction_ref>> preds, succs;
    ins_set lazy;

    scheduler(const module& mod, const memory_model& model) : m(mod), mm(model)
    {
        ins_set mine;
        std::size_t i = 0;
        for(auto it = m.begin(); it != m.end(); ++it)
        {
            pos[&*it] = i++;
            mine.insert(&*it);
        }
        auto schedulable = [&](instruction_ref x) { return not pass_utils::is_builtin(x); };
        std::unordered_map<const instruction*, ins_set> seen;
        auto edge = [&](instruction_ref from, instruction_ref to) {
            if(from == to or not schedulable(from) or not schedulable(to))
                return;
            if(seen[&*to].insert(&*from).second)
            {
                preds[&*to].push_back(from);
                succs[&*from].push_back(to);
            }
        };
        instruction_ref last_side_effect = m.end();
        for(auto x = m.begin(); x != m.end(); ++x)
        {
            if(not schedulable(x))
                continue;
            for(auto in : x->inputs())
                if(mine.count(&*in))
                    edge(in, x);
            // Sub-modules read outer values without listing them as inputs.
            std::vector<instruction_ref> outer;
            std::unordered_set<const module*> seen_mods;
            for(const auto* sub : x->module_inputs())
                collect_outer_inputs(*sub, mine, seen_mods, outer);
            for(auto in : outer)
                edge(in, x);
            if(pass_utils::has_side_effects(x->get_operator()))
            {
                if(last_side_effect != m.end())
                    edge(last_side_effect, x);
                last_side_effect = x;
            }
        }
        // An instruction that aliases a buffer may write it: whoever read the buffer before it
        // still does.
        std::unordered_map<const instruction*, std::vector<instruction_ref>> aliasers;
        for(auto x = m.begin(); x != m.end(); ++x)
            if(schedulable(x) and mm.br.owner(x) != x)
                aliasers[&*mm.br.owner(x)].push_back(x);
        for(const auto& [owner, ws] : aliasers)
        {
            (void)owner;
            const auto& rs = mm.br.readers(mm.br.owner(ws.front()));
            for(auto w : ws)
                for(auto r : rs)
                    if(pos.at(&*r) < pos.at(&*w))
                        edge(r, w);
        }
        for(auto x = m.begin(); x != m.end(); ++x)
            if(schedulable(x) and x->inputs().empty() and x->module_inputs().empty() and preds[&*x].empty() and
               not succs[&*x].empty() and not pass_utils::has_side_effects(x->get_operator()))
                lazy.insert(&*x);
    }

    std::vector<instruction_ref> run()
    {
        std::vector<instruction_ref> order;
        std::vector<instruction_ref> ready;
        std::unordered_map<const instruction*, std::size_t> waiting; // unscheduled non-lazy preds
        std::unordered_map<const instruction*, std::size_t> remaining;
        std::size_t count = 0;
        for(auto x = m.begin(); x != m.end(); ++x)
        {
            if(pass_utils::is_builtin(x))
            {
                if(x->name() != "@return")
                    order.push_back(x);
                continue;
            }
            remaining[&*x] = mm.reader_count(x);
            if(lazy.count(&*x))
                continue;
            count++;
            auto& w = waiting[&*x];
            for(auto p : preds[&*x])
                w += lazy.count(&*p) ? 0 : 1;
            if(w == 0)
                ready.push_back(x);
        }
        ins_set emitted;
        while(not ready.empty())
        {
            auto key = [&](instruction_ref c) {
                std::size_t add = mm.bytes(c);
                for(auto p : preds[&*c])
                    if(lazy.count(&*p) and not emitted.count(&*p))
                        add += mm.bytes(p);
                std::size_t freed = 0;
                for(auto o : mm.owners_read_by(c))
                    if(not mm.br.returned(o) and remaining[&*o] == 1)
                        freed += mm.bytes(o);
                auto net = static_cast<long double>(add) - static_cast<long double>(freed);
                return std::make_tuple(net, add, pos.at(&*c));
            };
            auto best = std::min_element(ready.begin(), ready.end(), [&](instruction_ref a, instruction_ref b) {
                return key(a) < key(b);
            });
            auto c = *best;
            *best  = ready.back();
            ready.pop_back();
            for(auto p : preds[&*c])
                if(lazy.count(&*p) and emitted.insert(&*p).second)
                    order.push_back(p);
            order.push_back(c);
            emitted.insert(&*c);
            count--;
            for(auto o : mm.owners_read_by(c))
                if(remaining[&*o] > 0)
                    remaining[&*o]--;
            for(auto s : succs[&*c])
                if(not lazy.count(&*s) and --waiting[&*s] == 0)
                    ready.push_back(s);
        }
        if(count != 0)
            MIGRAPHX_THROW("schedule: module " + m.name() + " has a dependency cycle");
        if(m.get_return() != m.end())
            order.push_back(m.get_return());
        return order;
    }
};

bool planned(const module& m)
{
    for(auto it = m.begin(); it != m.end(); ++it)
        if(it->get_operator().attributes().contains("scratch"))
            return true;
    return false;
}

} // namespace

std::size_t peak_live_bytes(const module& m) { return peak_of(current_order(m), memory_model{m}); }

void schedule::apply(module& m) const
{
    if(m.empty() or planned(m))
        return;
    memory_model mm{m};
    auto order = scheduler{m, mm}.run();
    if(order.size() != m.size())
        MIGRAPHX_THROW("schedule: lost instructions of module " + m.name());
    if(peak_of(order, mm) >= peak_of(current_order(m), mm))
        return;
    for(auto x : order)
        m.move_instruction(x, m.end());
}

} // namespace migraphx
