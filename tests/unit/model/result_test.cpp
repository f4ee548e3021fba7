#include "model/result.hpp"

#include <gtest/gtest.h>

namespace fabricmon {
namespace {

TEST(ResultTest, SysErrorNamesTheErrno) {
  const Error e = sysError("read ports/1/counters/symbol_error", EINVAL);
  EXPECT_EQ(e.message, "read ports/1/counters/symbol_error: EINVAL");
  EXPECT_EQ(e.errnum, EINVAL);
}

TEST(ResultTest, HoldsValueOrError) {
  Result<int> good(7);
  Result<int> bad(Error{"nope", EIO});
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().errnum, EIO);
  Status fine;
  Status broken(Error{"x", 1});
  EXPECT_TRUE(fine.ok());
  EXPECT_FALSE(broken.ok());
}

}  // namespace
}  // namespace fabricmon
