// Basic auth: header parsing, bcrypt through crypt_r, and the cache of successful checks.

#include "exporters/basic_auth.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <iostream>
#include <thread>

#include "tests/support/tls_test_support.hpp"

namespace fabricmon {
namespace {

using Clock = std::chrono::steady_clock;

TEST(ParseBasicAuthorization, Table) {
  struct Case {
    std::string header;
    bool ok;
    std::string user, password;
  } const cases[] = {
      {"Basic YWxpY2U6czNjcmV0", true, "alice", "s3cret"},           // alice:s3cret
      {"basic YWxpY2U6czNjcmV0", true, "alice", "s3cret"},           // scheme is case-insensitive
      {"BASIC   YWxpY2U6czNjcmV0  ", true, "alice", "s3cret"},
      {"Basic YWxpY2U6YTpiOmM=", true, "alice", "a:b:c"},            // only the first ':' splits
      {"Basic OnB3", true, "", "pw"},                                // ":pw"
      {"Basic YWxpY2U6", true, "alice", ""},                         // "alice:"
      {"Basic YWxpY2U=", false, "", ""},                             // "alice": no colon
      {"Bearer YWxpY2U6czNjcmV0", false, "", ""},
      {"Basic", false, "", ""},
      {"BasicYWxpY2U6czNjcmV0", false, "", ""},
      {"Basic YWxpY2U6czNjcmV0=", false, "", ""},                    // bad length
      {"Basic YWxp!2U6czNjcmV0", false, "", ""},                     // not base64
      {"Basic YQ==YWFh", false, "", ""},                             // data after padding
      {"", false, "", ""},
  };
  for (const auto& c : cases) {
    auto parsed = parseBasicAuthorization(c.header);
    ASSERT_EQ(parsed.has_value(), c.ok) << c.header;
    if (!c.ok) continue;
    EXPECT_EQ(parsed->user, c.user) << c.header;
    EXPECT_EQ(parsed->password, c.password) << c.header;
  }
}

TEST(Bcrypt, CryptRChecksEveryVariant) {
  const std::string hash = test_util::bcryptHash("s3cret", 4);
  ASSERT_TRUE(hash.starts_with("$2b$04$")) << hash;
  EXPECT_TRUE(bcryptMatches("s3cret", hash));
  EXPECT_FALSE(bcryptMatches("s3cret ", hash));
  EXPECT_FALSE(bcryptMatches("", hash));
  // $2y$ (PHP, htpasswd) and $2a$ hash the same as $2b$ for ASCII passwords below 72 bytes.
  for (const char* variant : {"$2y$", "$2a$"}) {
    std::string other = hash;
    other.replace(0, 4, variant);
    EXPECT_TRUE(bcryptMatches("s3cret", other)) << variant;
  }
  EXPECT_FALSE(bcryptMatches("s3cret", "not-a-hash"));
  EXPECT_FALSE(bcryptMatches("s3cret", ""));
}

TEST(BasicAuthCache, RemembersSuccessesOnly) {
  BasicAuth auth({{"alice", test_util::bcryptHash("s3cret", 4)}});
  const BasicCredentials good{"alice", "s3cret"}, wrong{"alice", "guess"}, stranger{"mallory", "s3cret"};
  EXPECT_FALSE(auth.cachedValid(good));
  EXPECT_FALSE(auth.verify(wrong));
  EXPECT_FALSE(auth.verify(stranger));
  EXPECT_EQ(auth.cacheSize(), 0u);  // failures are never remembered
  EXPECT_TRUE(auth.verify(good));
  EXPECT_TRUE(auth.cachedValid(good));
  EXPECT_FALSE(auth.cachedValid(wrong));
  EXPECT_FALSE(auth.cachedValid(BasicCredentials{"alice", "s3cret\n"}));
  EXPECT_EQ(auth.cacheSize(), 1u);
}

TEST(BasicAuthCache, IsBoundedAndEvictsTheOldest) {
  std::map<std::string, std::string> users;
  for (const char* u : {"a", "b", "c"}) users[u] = test_util::bcryptHash(std::string(u) + "pw", 4);
  BasicAuth auth(users, /*cacheEntries=*/2);
  for (const char* u : {"a", "b", "c"}) ASSERT_TRUE(auth.verify({u, std::string(u) + "pw"}));
  EXPECT_EQ(auth.cacheSize(), 2u);
  EXPECT_FALSE(auth.cachedValid({"a", "apw"}));
  EXPECT_TRUE(auth.cachedValid({"b", "bpw"}));
  EXPECT_TRUE(auth.cachedValid({"c", "cpw"}));
}

TEST(BasicAuthCache, VerifyAsyncRunsOffTheCallingThread) {
  BasicAuth auth({{"alice", test_util::bcryptHash("s3cret", 4)}});
  std::promise<std::pair<bool, std::thread::id>> result;
  auth.verifyAsync({"alice", "s3cret"}, [&](bool ok) { result.set_value({ok, std::this_thread::get_id()}); });
  auto [ok, thread] = result.get_future().get();
  EXPECT_TRUE(ok);
  EXPECT_NE(thread, std::this_thread::get_id());
}

// The numbers the cache is for, at cost 10 (2^10 rounds; htpasswd -B and Go bcrypt default).
TEST(BasicAuthCache, ACachedCheckCostsFarLessThanBcrypt) {
  const std::string hash = test_util::bcryptHash("s3cret", 10);
  BasicAuth auth({{"alice", hash}});
  const BasicCredentials good{"alice", "s3cret"};
  auto t0 = Clock::now();
  ASSERT_TRUE(auth.verify(good));
  const auto uncached = Clock::now() - t0;
  constexpr int kRepeats = 1000;
  t0 = Clock::now();
  for (int i = 0; i < kRepeats; ++i) ASSERT_TRUE(auth.verify(good));
  const auto cached = (Clock::now() - t0) / kRepeats;
  t0 = Clock::now();
  EXPECT_FALSE(auth.verify({"nobody", "s3cret"}));
  const auto unknownUser = Clock::now() - t0;
  using us = std::chrono::microseconds;
  std::cout << "bcrypt cost 10: uncached " << std::chrono::duration_cast<us>(uncached).count()
            << " us, cached " << std::chrono::duration_cast<std::chrono::nanoseconds>(cached).count()
            << " ns, unknown user " << std::chrono::duration_cast<us>(unknownUser).count() << " us\n";
  EXPECT_LT(cached * 100, uncached);
  // An unknown user costs a bcrypt check too, so timing does not tell which users exist.
  EXPECT_GT(unknownUser * 10, uncached);
}

}  // namespace
}  // namespace fabricmon
