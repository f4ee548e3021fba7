#include "daemon/alertmanager_target.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace fabricmon {

// Prometheus reads password_file and bearer token files the same way: whole file, surrounding
// whitespace trimmed (config/http_config.go).
Result<std::string> readSecretFile(const std::string& key, const std::string& path) {
  std::ifstream in(path);
  if (!in) return sysError(key + ": cannot read " + path, errno ? errno : ENOENT);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  const auto b = s.find_first_not_of(" \t\r\n");
  const auto e = s.find_last_not_of(" \t\r\n");
  if (b == std::string::npos) return Error{key + ": " + path + " is empty", EINVAL};
  return s.substr(b, e - b + 1);
}

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
