#include "passes/simplify_pipeline.hpp"
#include "passes/dead_code_elimination.hpp"
#include "passes/eliminate_common_subexpression.hpp"
#include "passes/hoist_broadcasts.hpp"
#include "passes/propagate_constant.hpp"
#include "passes/simplify_algebra.hpp"
#include "passes/simplify_reshapes.hpp"

namespace migraphx {

std::vector<pass> simplify_passes()
{
    std::vector<pass> round = {simplify_reshapes{},
                               simplify_algebra{},
                               hoist_broadcasts{},
                               propagate_constant{},
                               eliminate_common_subexpression{},
                               dead_code_elimination{}};
    std::vector<pass> r = round;
    r.insert(r.end(), round.begin(), round.end());
    return r;
}

} // namespace migraphx
