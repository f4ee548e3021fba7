#pragma once
// The TLS names a web-config file uses (Go's crypto/tls names, as exporter-toolkit takes them) and
// their OpenSSL spellings: the web-config loader validates with them, the TLS context applies them.

#include <optional>
#include <string_view>

namespace fabricmon {

/// The OpenSSL name of a cipher suite given by its Go / IANA name as exporter-toolkit takes it
/// (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 -> ECDHE-RSA-AES128-GCM-SHA256); TLS 1.3 suites keep
/// their IANA name. nullopt for a name Go's crypto/tls does not offer.
std::optional<std::string_view> opensslCipherName(std::string_view goName);

/// The OpenSSL group name of a Go curve name (CurveP256 -> P-256, X25519 -> X25519).
std::optional<std::string_view> opensslGroupName(std::string_view goName);

}  // namespace fabricmon
