#include "config/listen_address.hpp"

#include <gtest/gtest.h>

namespace fabricmon {
namespace {

struct GoodCase {
  const char* text;
  const char* host;
  unsigned port;
};

TEST(ParseListen, AcceptsHostPortForms) {
  const GoodCase cases[] = {
      {":19110", "", 19110},
      {"127.0.0.1:19110", "127.0.0.1", 19110},
      {"0.0.0.0:80", "0.0.0.0", 80},
      {"localhost:0", "localhost", 0},
      {"node-17.cluster_a.example:65535", "node-17.cluster_a.example", 65535},
      {"[::1]:19110", "::1", 19110},
      {"[::]:1", "::", 1},
      {"[fe80::1%eth0]:19110", "fe80::1%eth0", 19110},
      {"[::ffff:10.0.0.1]:8080", "::ffff:10.0.0.1", 8080},
      {":0", "", 0},
  };
  for (const auto& c : cases) {
    auto a = parseListen(c.text);
    ASSERT_TRUE(a.ok()) << c.text << ": " << a.error().message;
    EXPECT_EQ(a->host, c.host) << c.text;
    EXPECT_EQ(a->port, c.port) << c.text;
    EXPECT_EQ(formatListen(*a), c.text);
  }
}

struct BadCase {
  const char* text;
  const char* reason;
};

TEST(ParseListen, RejectsWithAReason) {
  const BadCase cases[] = {
      {"", "empty"},
      {"localhost", "missing :PORT"},
      {"19110", "missing :PORT"},
      {"localhost:", "missing port"},
      {":", "missing port"},
      {":65536", "0..65535"},
      {":99999999999", "0..65535"},
      {":-1", "decimal"},
      {":+80", "decimal"},
      {":80a", "decimal"},
      {": 80", "decimal"},
      {"::1:19110", "brackets"},
      {"[::1]", "missing :PORT"},
      {"[::1]19110", "missing :PORT"},
      {"[::1:19110", "missing ']'"},
      {"[]:19110", "empty host"},
      {"[127.0.0.1]:19110", "only for IPv6"},
      {"bad host:1", "invalid character"},
      {"http://x:1", "brackets"},
      {"a/b:1", "invalid character"},
  };
  for (const auto& c : cases) {
    auto a = parseListen(c.text);
    ASSERT_FALSE(a.ok()) << "accepted \"" << c.text << "\"";
    EXPECT_NE(a.error().message.find(c.reason), std::string::npos)
        << c.text << " -> " << a.error().message;
  }
}

}  // namespace
}  // namespace fabricmon
