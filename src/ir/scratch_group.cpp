#include "ir/scratch_group.hpp"
#include <utility>

namespace migraphx {

namespace {
std::string& group_of_this_thread()
{
    thread_local std::string name;
    return name;
}
} // namespace

scratch_group_scope::scratch_group_scope(std::string name) : previous(std::move(group_of_this_thread()))
{
    group_of_this_thread() = std::move(name);
}

scratch_group_scope::~scratch_group_scope() { group_of_this_thread() = std::move(previous); }

const std::string& current_scratch_group() { return group_of_this_thread(); }

} // namespace migraphx
