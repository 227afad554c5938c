#include "ir/replay.hpp"
#include "ir/env.hpp"
#include <migraphx/instruction.hpp>
#include <algorithm>
#include <iostream>
#include <unordered_set>

namespace migraphx {

namespace {

constexpr std::size_t max_recordings_per_segment = 4;
constexpr std::size_t max_unused_recordings      = 3;

bool trace_replay() { return env_enabled("MIGRAPHX_TRACE_CUDA_GRAPH"); }

/// The data pointers a recording depends on: a tuple's own data() is null, so its elements'
/// (a host fallback's tuple lands in fresh memory each run; keyed by null, a replay would read
/// the memory of the run that was recorded).
void add_pointers(const argument& a, std::vector<const void*>& out)
{
    if(a.get_shape().type() != shape::tuple_type)
    {
        out.push_back(a.data());
        return;
    }
    for(const auto& e : a.get_sub_objects())
        add_pointers(e, out);
}

} // namespace

std::vector<replay_segment> find_replay_segments(const module& m,
                                                 const context& ctx,
                                                 std::size_t min_size,
                                                 const std::unordered_set<const instruction*>& excluded)
{
    std::vector<replay_segment> segs;
    auto close = [&](instruction_ref b, instruction_ref e, std::size_t n) {
        if(n < min_size)
            return;
        replay_segment s{b, e, {}, {}};
        std::unordered_set<const instruction*> inside, seen;
        for(auto i = b; i != e; ++i)
            inside.insert(&*i);
        for(auto i = b; i != e; ++i)
        {
            for(auto x : i->inputs())
                if(inside.count(&*x) == 0 and seen.insert(&*x).second)
                    s.inputs.push_back(x);
            bool read_outside = std::any_of(i->outputs().begin(), i->outputs().end(),
                                            [&](instruction_ref u) { return inside.count(&*u) == 0; });
            if(read_outside or std::next(i) == m.end())
                s.outputs.push_back(i);
        }
        segs.push_back(std::move(s));
    };
    auto begin      = m.end();
    std::size_t len = 0;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        // Sub-modules run through the evaluator, not as recorded work.
        bool ok = ins->module_inputs().empty() and excluded.count(&*ins) == 0 and ctx.replayable(*ins);
        if(ok)
        {
            if(len++ == 0)
                begin = ins;
            continue;
        }
        if(len > 0)
            close(begin, ins, len);
        len = 0;
    }
    if(len > 0)
        close(begin, m.end(), len);
    return segs;
}

const std::vector<replay_segment>& replay_cache::segments(const module& m, const context& ctx)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if(m_refind)
    {
        // An instruction was excluded during the last run: find the segments again, and
        // record them afresh (their first run plain again).
        m_segments.clear();
        m_entries.clear();
        m_refind = false;
    }
    auto it = m_segments.find(&m);
    if(it != m_segments.end() and it->second.edits != m.edits())
    {
        // m changed after its segments were found (its iterators may name removed instructions,
        // its recordings old work): forget both; the exclusions name instructions, which stay
        // valid or unused. Nothing recorded is in flight: a run ends with the context finished.
        for(const auto* key : it->second.keys)
            m_entries.erase(key);
        m_segments.erase(it);
        it = m_segments.end();
        if(trace_replay())
            std::cerr << "migx: module " << m.name() << " changed since it was recorded; recording again\n";
    }
    if(it == m_segments.end())
    {
        found_segments f{m.edits(), find_replay_segments(m, ctx, 2, m_excluded), {}};
        for(const auto& seg : f.segments)
            f.keys.push_back(&*seg.begin);
        it = m_segments.emplace(&m, std::move(f)).first;
        if(trace_replay())
        {
            // Which instructions run outside the recordings, and the recordings' sizes.
            const auto& segs = it->second.segments;
            std::cerr << "migx: module " << m.name() << ": " << segs.size() << " recordable run(s) of";
            for(const auto& seg : segs)
                std::cerr << " " << std::distance(seg.begin, seg.end);
            std::cerr << " instructions; outside them:";
            std::size_t next = 0;
            for(auto ins = m.begin(); ins != m.end(); ++ins)
            {
                if(next < segs.size() and ins == segs[next].begin)
                {
                    ins = std::prev(segs[next++].end);
                    continue;
                }
                std::cerr << " " << ins->name();
            }
            std::cerr << "\n";
        }
    }
    return it->second.segments;
}

replay_cache::outcome
replay_cache::run(const replay_segment& seg, context& ctx, const lookup_fn& lookup, const step_fn& step)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<const void*> pointers;
    std::vector<shape> shapes;
    bool fits = true; // inputs of their declared shapes (a data-dependent result may be smaller)
    for(auto x : seg.inputs)
    {
        const auto& a = lookup(x);
        add_pointers(a, pointers);
        shapes.push_back(a.get_shape());
        fits = fits and a.get_shape() == x->get_shape();
    }
    // The outputs' results from the results of all the segment's instructions (in order).
    auto outputs_of = [&](const std::vector<argument>& all) {
        std::vector<std::pair<const instruction*, argument>> r;
        std::size_t k = 0, n = 0;
        for(auto i = seg.begin; i != seg.end and k < seg.outputs.size(); ++i, ++n)
            if(i == seg.outputs[k])
                r.emplace_back(&*seg.outputs[k++], all[n]);
        return r;
    };
    auto compute_all = [&] {
        std::vector<argument> all;
        for(auto i = seg.begin; i != seg.end; ++i)
            all.push_back(step(i));
        return outcome{outputs_of(all), false};
    };

    auto& e = m_entries[&*seg.begin];
    auto found = std::find_if(e.recordings.begin(), e.recordings.end(), [&](const recording& r) {
        return r.pointers == pointers and r.shapes == shapes;
    });
    if(found != e.recordings.end())
    {
        ctx.replay(found->handle);
        replays++;
        e.hits++;
        std::rotate(e.recordings.begin(), found, found + 1);
        return {e.recordings.front().results, true};
    }
    if(e.made >= max_unused_recordings and e.hits == 0)
    {
        e.failed = true;
        if(trace_replay())
            std::cerr << "migx: the segment from " << seg.begin->name()
                      << " gets other input pointers every run; it runs instruction by instruction\n";
    }
    if(e.failed or not fits or e.runs++ == 0)
        return compute_all();

    recording rec{pointers, shapes, nullptr, {}};
    const instruction* failing = nullptr; // the instruction whose call failed while recording
    std::vector<argument> all;
    try
    {
        rec.handle = ctx.record([&] {
            for(auto i = seg.begin; i != seg.end; ++i)
            {
                failing = &*i;
                all.push_back(step(i));
            }
            failing = nullptr;
        });
    }
    catch(const std::exception& ex)
    {
        if(failing != nullptr)
        {
            // Leave that instruction out and record the rest around it, from the next run.
            m_excluded.insert(failing);
            m_refind = true;
            failures++;
            if(trace_replay())
                std::cerr << "migx: " << failing->name() << " cannot be recorded (" << ex.what()
                          << "); it runs outside the recordings\n";
            return compute_all();
        }
        // Something in the segment cannot be recorded (e.g. a library call that synchronises):
        // run it plainly, now and from now on.
        e.failed = true;
        failures++;
        if(trace_replay())
            std::cerr << "migx: cannot record the segment from " << seg.begin->name() << " (" << ex.what()
                      << "); it runs instruction by instruction\n";
        return compute_all();
    }
    rec.results = outputs_of(all);
    recordings++;
    e.made++;
    if(trace_replay())
        std::cerr << "migx: recorded " << std::distance(seg.begin, seg.end) << " instructions from "
                  << seg.begin->name() << "\n";
    ctx.replay(rec.handle); // recording queued nothing: run it now
    replays++;
    e.recordings.insert(e.recordings.begin(), std::move(rec));
    if(e.recordings.size() > max_recordings_per_segment)
        e.recordings.pop_back();
    return {e.recordings.front().results, false};
}

} // namespace migraphx
