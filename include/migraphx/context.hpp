#ifndef MIGRAPHX_CONTEXT_HPP
#define MIGRAPHX_CONTEXT_HPP

#include <migraphx/errors.hpp>
#include <migraphx/value.hpp>
#include <functional>
#include <memory>
#include <string>
#include <typeinfo>
#include <type_traits>
#include <utility>

namespace migraphx {

struct instruction;

/// A target's execution state (device, stream, library handles), type-erased.
/// A concrete context is a plain struct; finish() (wait for all work) is optional, and so is
/// recording (a target whose work can be recorded once and replayed, e.g. as a CUDA graph):
///   bool replayable(const instruction&) const   -- ins only queues work on fixed memory
///   std::shared_ptr<void> record(const std::function<void()>& run)  -- runs `run` recording
///                                                  what it queues (not executing it); throws
///                                                  if the work cannot be recorded
///   void replay(const std::shared_ptr<void>& recording)             -- queues it again
/// and so is end_finalize(): program::finalize calls it after every op's finalize, so a target
/// can finish there, on several threads, what its ops' finalize only queued (e.g. building
/// library plans for a loaded program). Also optional, as in MIGraphX: value to_value() const and
/// void from_value(const value&): what a saved compiled program keeps of the context (the gpu
/// target: the device and library versions its choices were made for) and gives a loaded one
/// before its ops' finalize. Optional too: std::shared_ptr<void> begin_run(), called as a run
/// starts and its result released as it ends: a target whose runs of one program must not overlap
/// (the gpu: one stream, one scratch buffer) returns a lock there, so that runs from several
/// threads take turns instead of mixing their work.
struct context
{
    context() = default;
    template <class T, std::enable_if_t<not std::is_same<std::decay_t<T>, context>{}, int> = 0>
    context(T x) : m_self(std::make_shared<model<T>>(std::move(x))) // NOLINT
    {
    }

    bool empty() const { return m_self == nullptr; }
    /// Blocks until all work queued on the context is done.
    void finish() const
    {
        if(m_self)
            m_self->finish();
    }

    /// Runs what the ops' finalize left for the end (see above).
    void end_finalize() const
    {
        if(m_self)
            m_self->end_finalize();
    }

    /// What a saved compiled program keeps of the context (null where the target keeps nothing).
    value to_value() const { return m_self ? m_self->to_value() : value{}; }
    /// Gives a loaded program's context what to_value kept (before its ops' finalize).
    void from_value(const value& v)
    {
        if(m_self)
            m_self->from_value(v);
    }

    /// Held while a run goes on (see above; nullptr where the target's runs may overlap).
    std::shared_ptr<void> begin_run() const { return m_self ? m_self->begin_run() : nullptr; }

    /// Whether the target can record ins's work and replay it later (false if it cannot record).
    bool replayable(const instruction& ins) const { return m_self and m_self->replayable(ins); }
    std::shared_ptr<void> record(const std::function<void()>& run) const
    {
        if(not m_self)
            MIGRAPHX_THROW("context: nothing to record with");
        return m_self->record(run);
    }
    void replay(const std::shared_ptr<void>& recording) const
    {
        if(not m_self)
            MIGRAPHX_THROW("context: nothing to replay with");
        m_self->replay(recording);
    }

    template <class T>
    T& get() const
    {
        if(not m_self or m_self->type() != typeid(T))
            MIGRAPHX_THROW(std::string("context: not a ") + typeid(T).name());
        return static_cast<model<T>*>(m_self.get())->x;
    }
    template <class T>
    T* get_if() const
    {
        if(not m_self or m_self->type() != typeid(T))
            return nullptr;
        return &static_cast<model<T>*>(m_self.get())->x;
    }

    private:
    struct concept_t
    {
        virtual ~concept_t()                        = default;
        virtual void finish()                       = 0;
        virtual void end_finalize()                 = 0;
        virtual const std::type_info& type() const  = 0;
        virtual bool replayable(const instruction& ins) const                  = 0;
        virtual std::shared_ptr<void> record(const std::function<void()>& run) = 0;
        virtual void replay(const std::shared_ptr<void>& recording)            = 0;
        virtual value to_value() const                                         = 0;
        virtual void from_value(const value& v)                                = 0;
        virtual std::shared_ptr<void> begin_run()                              = 0;
    };
    template <class T>
    struct model : concept_t
    {
        explicit model(T y) : x(std::move(y)) {}
        template <class U>
        static auto call_finish(U& u, int) -> decltype(u.finish(), void())
        {
            u.finish();
        }
        template <class U>
        static void call_finish(U&, long)
        {
        }
        void finish() override { call_finish(x, 0); }

        template <class U>
        static auto call_end_finalize(U& u, int) -> decltype(u.end_finalize(), void())
        {
            u.end_finalize();
        }
        template <class U>
        static void call_end_finalize(U&, long)
        {
        }
        void end_finalize() override { call_end_finalize(x, 0); }

        template <class U>
        static auto call_replayable(const U& u, const instruction& ins, int) -> decltype(u.replayable(ins))
        {
            return u.replayable(ins);
        }
        template <class U>
        static bool call_replayable(const U&, const instruction&, long)
        {
            return false;
        }
        bool replayable(const instruction& ins) const override { return call_replayable(x, ins, 0); }

        template <class U>
        static auto call_record(U& u, const std::function<void()>& run, int) -> decltype(u.record(run))
        {
            return u.record(run);
        }
        template <class U>
        static std::shared_ptr<void> call_record(U&, const std::function<void()>&, long)
        {
            MIGRAPHX_THROW("context: this target cannot record work");
        }
        std::shared_ptr<void> record(const std::function<void()>& run) override { return call_record(x, run, 0); }

        template <class U>
        static auto call_replay(U& u, const std::shared_ptr<void>& r, int) -> decltype(u.replay(r))
        {
            u.replay(r);
        }
        template <class U>
        static void call_replay(U&, const std::shared_ptr<void>&, long)
        {
            MIGRAPHX_THROW("context: this target cannot replay work");
        }
        void replay(const std::shared_ptr<void>& r) override { call_replay(x, r, 0); }

        template <class U>
        static auto call_to_value(const U& u, int) -> decltype(u.to_value())
        {
            return u.to_value();
        }
        template <class U>
        static value call_to_value(const U&, long)
        {
            return {};
        }
        value to_value() const override { return call_to_value(x, 0); }
        template <class U>
        static auto call_from_value(U& u, const value& v, int) -> decltype(u.from_value(v))
        {
            u.from_value(v);
        }
        template <class U>
        static void call_from_value(U&, const value&, long)
        {
        }
        void from_value(const value& v) override { call_from_value(x, v, 0); }
        template <class U>
        static auto call_begin_run(U& u, int) -> decltype(u.begin_run())
        {
            return u.begin_run();
        }
        template <class U>
        static std::shared_ptr<void> call_begin_run(U&, long)
        {
            return nullptr;
        }
        std::shared_ptr<void> begin_run() override { return call_begin_run(x, 0); }
        const std::type_info& type() const override { return typeid(T); }
        T x;
    };
    std::shared_ptr<concept_t> m_self;
};

} // namespace migraphx

#endif
