#pragma once
// HTTP basic authentication (RFC 7617) against the bcrypt hashes of a web-config file, the way
// exporter-toolkit checks them (web/handler.go), with bcrypt kept off the I/O threads.

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "model/asio.hpp"

namespace fabricmon {

/// The user and password of an `Authorization: Basic` header value.
struct BasicCredentials {
  std::string user;
  std::string password;
};

/// nullopt unless `header` is `Basic <base64 of user:password>` (scheme case-insensitive).
std::optional<BasicCredentials> parseBasicAuthorization(std::string_view header);

/// Checks `password` against a bcrypt `hash` with crypt_r(3) (libxcrypt: $2a$, $2b$, $2y$).
/// Costs what the hash's cost factor says: about 50-100 ms at cost 10. Thread-safe.
bool bcryptMatches(const std::string& password, const std::string& hash);

/// The users of one web-config. A bcrypt check is slow by design, so:
///  - a successful (user, password) is remembered (as SHA-256 of user, hash and password, never
///    in clear) and later requests with it are answered at once; failures are never cached, so
///    every wrong guess still costs a full bcrypt check;
///  - checks that are not cached run one at a time on a worker thread of their own. One thread
///    caps the CPU a password-guessing client can burn at one core and never blocks the I/O
///    threads (exporter-toolkit serialises them with a mutex for the same reason).
/// An unknown user is checked against a fixed hash, so timing does not reveal which users exist.
class BasicAuth {
 public:
  /// `users`: user -> bcrypt hash, as validated by loadWebConfigFile.
  explicit BasicAuth(std::map<std::string, std::string> users, std::size_t cacheEntries = 256);
  ~BasicAuth();
  BasicAuth(const BasicAuth&) = delete;
  BasicAuth& operator=(const BasicAuth&) = delete;

  /// True when these credentials were verified before (cheap: one SHA-256).
  bool cachedValid(const BasicCredentials& credentials) const;

  /// The full check on the calling thread (bcrypt unless cached); caches a success.
  bool verify(const BasicCredentials& credentials);

  /// verify() on the worker thread; `done(ok)` is called there. `done` must not block; it should
  /// post back to the caller's executor and not keep the last reference to this object.
  void verifyAsync(BasicCredentials credentials, std::function<void(bool)> done);

  /// Successful verifications remembered now.
  std::size_t cacheSize() const;

 private:
  std::string cacheKey(const BasicCredentials& credentials, const std::string& hash) const;

  const std::map<std::string, std::string> users_;
  const std::size_t cacheEntries_;
  mutable std::mutex mutex_;
  std::unordered_set<std::string> cache_;  // SHA-256 digests of verified credentials
  std::deque<std::string> cacheOrder_;     // oldest first, for eviction
  boost::asio::thread_pool worker_{1};
};

}  // namespace fabricmon
