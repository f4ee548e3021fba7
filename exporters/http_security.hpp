#pragma once
// From `web.config_file` to a secured HttpServer: the one call the daemon makes.

#include <string>

#include "exporters/http_server.hpp"
#include "config/web_config.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// Sets `options.tls` (when the file has tls_server_config) and `options.basicAuth` (when it has
/// basic_auth_users) from a loaded web-config; leaves them nullptr otherwise. An Error names the
/// web-config file and the key (a key that does not match its certificate, an unreadable CA...).
Status applyWebSecurity(const WebSecurity& security, HttpServerOptions& options);

/// loadWebConfigFile(path) then applyWebSecurity(): everything a `web.config_file` asks for,
/// validated before the server starts. Call again to pick up a changed file (SIGHUP).
Status configureWebSecurity(const std::string& webConfigFile, HttpServerOptions& options);

}  // namespace fabricmon
