#include "exporters/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fabricmon {
namespace {

struct Utf8Case {
  std::string input;
  bool valid;
  std::string fixed;
};

TEST(Utf8Test, ValidatesAndRepairs) {
  const Utf8Case cases[] = {
      {"", true, ""},
      {"mlx5_0 SDMAInt10,32", true, "mlx5_0 SDMAInt10,32"},
      {"\xC3\xA9t\xC3\xA9", true, "\xC3\xA9t\xC3\xA9"},                 // "été"
      {"\xF0\x9F\x98\x80", true, "\xF0\x9F\x98\x80"},                     // U+1F600
      {"a\xFFz", false, "a\xEF\xBF\xBDz"},                                // never valid byte
      {"\xC0\xAF", false, "\xEF\xBF\xBD\xEF\xBF\xBD"},                    // overlong '/'
      {"\xED\xA0\x80", false, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},    // surrogate D800
      {"\xF4\x90\x80\x80", false,
       "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},               // above U+10FFFF
      {"ab\xE2\x82", false, "ab\xEF\xBF\xBD\xEF\xBF\xBD"},                // truncated at the end
  };
  for (const auto& c : cases) {
    EXPECT_EQ(isValidUtf8(c.input), c.valid) << c.input;
    EXPECT_EQ(toValidUtf8(c.input), c.fixed) << c.input;
    EXPECT_TRUE(isValidUtf8(toValidUtf8(c.input))) << c.input;
  }
}

}  // namespace
}  // namespace fabricmon
