#include "exporters/accept_encoding.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace fabricmon {
namespace {

struct AcceptCase {
  std::string_view header;
  bool gzip;
};

TEST(AcceptEncodingTest, Table) {
  const AcceptCase cases[] = {
      {"", false},
      {"identity", false},
      {"gzip", true},
      {"GZip", true},
      {"x-gzip", true},
      {"deflate, gzip", true},
      {"gzip, deflate, br", true},          // what Prometheus sends
      {"br;q=1.0, gzip;q=0.8, *;q=0.1", true},
      {"gzip;q=0", false},
      {"gzip; q=0.000", false},
      {"gzip;Q=0", false},
      {"gzip;q=0.001", true},
      {"gzip;q=1", true},
      {"gzip;q=1.000", true},
      {"gzip;q=1.5", false},                // malformed qvalue: identity is the safe answer
      {"gzip;q=abc", false},
      {"*", true},
      {"*;q=0", false},
      {"*;q=0.5, gzip;q=0", false},         // explicitly refused despite the wildcard
      {"gzip;q=0, *", false},
      {"deflate, *;q=0", false},
      {"gzipx", false},
      {" ,, gzip ,", true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(acceptsGzip(c.header), c.gzip) << "Accept-Encoding: " << c.header;
  }
}

}  // namespace
}  // namespace fabricmon
