// ir/shape_text.hpp: a shape in an error message reads as the program prints it.
#include "ir/shape_text.hpp"
#include <gtest/gtest.h>
#include <sstream>

TEST(shape_text, reads_as_the_shape_prints)
{
    migraphx::shape s{migraphx::shape::int64_type, {2, 6}};
    std::ostringstream printed;
    printed << s;
    EXPECT_EQ(migraphx::shape_text(s), printed.str());
    EXPECT_NE(migraphx::shape_text(s).find("int64_type, {2, 6}"), std::string::npos) << migraphx::shape_text(s);
}
