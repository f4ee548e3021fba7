#include "exporters/basic_auth.hpp"

#include <spdlog/spdlog.h>

#include <cctype>
#include <cstring>
#include <memory>
#include <utility>

#include "exporters/tls_module.hpp"

namespace fabricmon {
namespace {

// A cost-10 bcrypt hash of a random password nobody knows: unknown users are checked against it so
// that they take as long as known ones (exporter-toolkit does the same with a fixed hash).
constexpr const char* kDummyHash = "$2b$10$Ax80dxJCOXu09d8J0kQpaeORI//VvhHtbivchpJ1PyZr4JBs4TxGq";

int base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Standard base64 (RFC 4648 §4) with padding, as RFC 7617 requires.
std::optional<std::string> base64Decode(std::string_view in) {
  if (in.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(in.size() / 4 * 3);
  for (std::size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = in[i + j];
      if (c == '=' && i + 4 == in.size() && j >= 2) {
        v[j] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;  // data after padding
      v[j] = base64Value(c);
      if (v[j] < 0) return std::nullopt;
    }
    const unsigned n = (unsigned(v[0]) << 18) | (unsigned(v[1]) << 12) | (unsigned(v[2]) << 6) | unsigned(v[3]);
    out.push_back(static_cast<char>((n >> 16) & 0xff));
    if (pad < 2) out.push_back(static_cast<char>((n >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(n & 0xff));
  }
  return out;
}

}  // namespace

std::optional<BasicCredentials> parseBasicAuthorization(std::string_view header) {
  constexpr std::string_view kScheme = "basic";
  if (header.size() <= kScheme.size() + 1) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(header[i])) != kScheme[i]) return std::nullopt;
  }
  std::string_view rest = header.substr(kScheme.size());
  if (rest.front() != ' ') return std::nullopt;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  auto decoded = base64Decode(rest);
  if (!decoded) return std::nullopt;
  const auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return BasicCredentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

bool bcryptMatches(const std::string& password, const std::string& hash) {
  auto module = tlsModule();
  if (!module) {
    // applyWebSecurity loads the module before any BasicAuth exists; nothing is let in without it.
    spdlog::error("basic auth: {}", module.error().message);
    return false;
  }
  return (*module)->bcryptMatches(password, hash);
}

BasicAuth::BasicAuth(std::map<std::string, std::string> users, std::size_t cacheEntries)
    : users_(std::move(users)), cacheEntries_(cacheEntries) {}

BasicAuth::~BasicAuth() { worker_.join(); }

std::string BasicAuth::cacheKey(const BasicCredentials& c, const std::string& hash) const {
  // Length-prefixed fields, so ("a:b", "c") and ("a", "b:c") cannot collide.
  std::string input;
  for (const std::string* field : {&c.user, &hash, &c.password}) {
    input += std::to_string(field->size()) + ":" + *field;
  }
  auto module = tlsModule();
  // Without the module no key is made and nothing is cached: verify() then fails in bcryptMatches.
  std::string digest = module ? (*module)->sha256(input) : std::string();
  explicit_bzero(input.data(), input.size());
  return digest;
}

bool BasicAuth::cachedValid(const BasicCredentials& c) const {
  const auto it = users_.find(c.user);
  if (it == users_.end()) return false;
  const std::string key = cacheKey(c, it->second);
  if (key.empty()) return false;
  std::lock_guard lock(mutex_);
  return cache_.count(key) != 0;
}

bool BasicAuth::verify(const BasicCredentials& c) {
  const auto it = users_.find(c.user);
  if (it == users_.end()) {
    (void)bcryptMatches(c.password, kDummyHash);
    return false;
  }
  const std::string key = cacheKey(c, it->second);
  {
    std::lock_guard lock(mutex_);
    if (cache_.count(key) != 0) return true;
  }
  if (!bcryptMatches(c.password, it->second) || key.empty()) return false;
  std::lock_guard lock(mutex_);
  if (cache_.insert(key).second) {
    cacheOrder_.push_back(key);
    if (cacheOrder_.size() > cacheEntries_) {
      cache_.erase(cacheOrder_.front());
      cacheOrder_.pop_front();
    }
  }
  return true;
}

void BasicAuth::verifyAsync(BasicCredentials credentials, std::function<void(bool)> done) {
  boost::asio::post(worker_, [this, c = std::move(credentials), done = std::move(done)]() mutable {
    const bool ok = verify(c);
    explicit_bzero(c.password.data(), c.password.size());
    auto callback = std::move(done);
    callback(ok);
  });
}

std::size_t BasicAuth::cacheSize() const {
  std::lock_guard lock(mutex_);
  return cache_.size();
}

}  // namespace fabricmon
