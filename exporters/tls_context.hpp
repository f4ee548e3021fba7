#pragma once
// Turning a web-config's tls_server_config into the OpenSSL context the HTTP server serves with
// (Asio's OpenSSL stream; ARCHITECTURE.md "Dependencies").

#include <memory>
#include <optional>
#include <string_view>

#include "exporters/web_config.hpp"
#include "model/result.hpp"

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace fabricmon {

/// A server context: certificate chain and key loaded (and checked to match), protocol range,
/// cipher suites, curves and client-certificate policy as configured. `webConfigFile` names the
/// file in errors ("web.yml: tls_server_config.key_file: ... does not match the certificate").
/// Throws nothing.
Result<std::shared_ptr<boost::asio::ssl::context>> makeTlsContext(const TlsSettings& settings,
                                                                  std::string_view webConfigFile);

/// The OpenSSL name of a cipher suite given by its Go / IANA name as exporter-toolkit takes it
/// (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 -> ECDHE-RSA-AES128-GCM-SHA256); TLS 1.3 suites keep
/// their IANA name. nullopt for a name Go's crypto/tls does not offer.
std::optional<std::string_view> opensslCipherName(std::string_view goName);

/// The OpenSSL group name of a Go curve name (CurveP256 -> P-256, X25519 -> X25519).
std::optional<std::string_view> opensslGroupName(std::string_view goName);

}  // namespace fabricmon
