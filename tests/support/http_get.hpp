#pragma once
// Test helper: a minimal blocking HTTP/1.1 GET against 127.0.0.1 (no keep-alive).

#include <chrono>
#include <map>
#include <string>

namespace fabricmon::testing {

struct HttpResponse {
  int status = 0;  ///< 0 = no response (connection failed or timed out)
  std::map<std::string, std::string> headers;  ///< lower-case names
  std::string body;
};

HttpResponse httpGet(int port, const std::string& path, const std::string& extraHeaders = "",
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(3000));

/// The value of one series in Prometheus text, e.g. seriesValue(text, "fabricmon_netdev_up{interface=\"eth0\"}").
/// NaN when absent.
double seriesValue(const std::string& text, const std::string& series);

}  // namespace fabricmon::testing
