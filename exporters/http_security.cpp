#include "exporters/http_security.hpp"

#include "exporters/basic_auth.hpp"
#include "exporters/tls_module.hpp"

namespace fabricmon {

Status applyWebSecurity(const WebSecurity& security, HttpServerOptions& options) {
  std::shared_ptr<TlsServer> tls;
  if (security.tls || !security.basicAuthUsers.empty()) {
    // Loaded here, at start-up or reload, so a missing module is a configuration error at once
    // rather than a failure of the first request.
    auto module = tlsModule();
    if (!module) return Error{security.file + ": " + module.error().message, module.error().errnum};
    if (security.tls) {
      auto server = (*module)->makeServer(*security.tls, security.file);
      if (!server) return server.error();
      tls = std::move(*server);
    }
  }
  options.tls = std::move(tls);
  options.basicAuth = security.basicAuthUsers.empty()
                          ? nullptr
                          : std::make_shared<BasicAuth>(security.basicAuthUsers);
  return {};
}

Status configureWebSecurity(const std::string& webConfigFile, HttpServerOptions& options) {
  auto security = loadWebConfigFile(webConfigFile);
  if (!security) return security.error();
  return applyWebSecurity(*security, options);
}

}  // namespace fabricmon
