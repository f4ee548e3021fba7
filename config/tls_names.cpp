#include "config/tls_names.hpp"

#include <utility>

namespace fabricmon {
namespace {

// Go's crypto/tls cipher suites (cipher_suites.go, CipherSuites() and InsecureCipherSuites())
// with their OpenSSL names (openssl ciphers -stdname).
constexpr std::pair<std::string_view, std::string_view> kCipherSuites[] = {
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA"},
    {"TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA"},
    {"TLS_RSA_WITH_AES_128_CBC_SHA256", "AES128-SHA256"},
    {"TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256"},
    {"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA"},
    {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA-AES128-SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA-AES128-SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"},
    // TLS 1.3 (RFC 8446 B.4): same name in both worlds, configured separately in OpenSSL.
    {"TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"},
    {"TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384"},
    {"TLS_CHACHA20_POLY1305_SHA256", "TLS_CHACHA20_POLY1305_SHA256"},
};

constexpr std::pair<std::string_view, std::string_view> kGroups[] = {
    {"CurveP256", "P-256"}, {"CurveP384", "P-384"}, {"CurveP521", "P-521"}, {"X25519", "X25519"}};

}  // namespace

std::optional<std::string_view> opensslCipherName(std::string_view goName) {
  for (const auto& [go, openssl] : kCipherSuites) {
    if (go == goName) return openssl;
  }
  return std::nullopt;
}

std::optional<std::string_view> opensslGroupName(std::string_view goName) {
  for (const auto& [go, openssl] : kGroups) {
    if (go == goName) return openssl;
  }
  return std::nullopt;
}

}  // namespace fabricmon
