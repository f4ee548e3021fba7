#include "daemon/alertmanager_target.hpp"

#include <unistd.h>


namespace fabricmon {

Result<AlertmanagerTarget> alertmanagerTarget(const Config& config, uint16_t port) {
  const AlertmanagerConfig& a = config.alertmanager;
  AlertmanagerTarget t;
  t.urls = a.urls;
  t.resendInterval = a.resendInterval;
  t.job = a.job;
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "localhost");
  t.instance = a.instance.value_or(std::string(host) + ":" + std::to_string(port));
  t.generatorUrl = "http://" + t.instance + "/";
  t.client.timeout = a.timeout;
  t.client.caFile = a.caFile;
  t.client.certFile = a.certFile;
  t.client.keyFile = a.keyFile;
  t.client.insecureSkipVerify = a.insecureSkipVerify;
  if (a.username) {
    auto pw = readSecretFile("alertmanager.basic_auth.password_file", *a.passwordFile);
    if (!pw) return pw.error();
    t.client.username = a.username;
    t.client.password = std::move(*pw);
  }
  if (a.bearerTokenFile) {
    auto token = readSecretFile("alertmanager.bearer_token_file", *a.bearerTokenFile);
    if (!token) return token.error();
    t.client.bearerToken = std::move(*token);
  }
  return t;
}

}  // namespace fabricmon
