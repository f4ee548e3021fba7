#pragma once
// Turning a web-config's tls_server_config into the OpenSSL context the HTTP server serves with
// (Asio's OpenSSL stream; docs/architecture.md "Why Boost.Beast and not civetweb").

#include <memory>
#include <optional>
#include <string_view>

#include "config/web_config.hpp"
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

}  // namespace fabricmon
