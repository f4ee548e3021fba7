#include "tests/support/http_get.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace fabricmon::testing {

HttpResponse httpGet(int port, const std::string& path, const std::string& extraHeaders,
                     std::chrono::milliseconds timeout) {
  HttpResponse resp;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return resp;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return resp;
  }
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                          extraHeaders + "\r\n";
  if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) {
    ::close(fd);
    return resp;
  }
  std::string raw;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[16384];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  const auto headerEnd = raw.find("\r\n\r\n");
  if (headerEnd == std::string::npos) return resp;
  std::istringstream head(raw.substr(0, headerEnd));
  std::string line;
  std::getline(head, line);
  if (line.size() < 12) return resp;
  resp.status = std::stoi(line.substr(9, 3));
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    resp.headers[name] = value;
  }
  resp.body = raw.substr(headerEnd + 4);
  return resp;
}

double seriesValue(const std::string& text, const std::string& series) {
  size_t pos = 0;
  while ((pos = text.find(series, pos)) != std::string::npos) {
    const bool lineStart = pos == 0 || text[pos - 1] == '\n';
    const size_t after = pos + series.size();
    if (lineStart && after < text.size() && text[after] == ' ') {
      return std::strtod(text.c_str() + after + 1, nullptr);
    }
    pos = after;
  }
  return std::nan("");
}

}  // namespace fabricmon::testing
