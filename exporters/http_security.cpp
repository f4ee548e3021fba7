#include "exporters/http_security.hpp"

#include "exporters/basic_auth.hpp"
#include "exporters/tls_context.hpp"

namespace fabricmon {

Status applyWebSecurity(const WebSecurity& security, HttpServerOptions& options) {
  std::shared_ptr<boost::asio::ssl::context> tls;
  if (security.tls) {
    auto ctx = makeTlsContext(*security.tls, security.file);
    if (!ctx) return ctx.error();
    tls = std::move(*ctx);
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
