#include "config/listen_address.hpp"

#include <charconv>

namespace fabricmon {
namespace {

Error listenError(std::string_view text, std::string_view why) {
  std::string message = "invalid listen address \"";
  message.append(text);
  message += "\": ";
  message.append(why);
  return Error{std::move(message)};
}

bool isAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Host names (RFC 1123 letters, digits, '-', '.') and IPv4 literals; '_' because real fleets have
// it.
bool isHostChar(char c) { return isAlnum(c) || c == '-' || c == '.' || c == '_'; }

// IPv6 literal with an optional zone (`fe80::1%eth0`, RFC 6874) and embedded IPv4
// (`::ffff:1.2.3.4`).
bool isIpv6Char(char c) {
  return isAlnum(c) || c == ':' || c == '.' || c == '%' || c == '-' || c == '_';
}

}  // namespace

Result<ListenAddress> parseListen(std::string_view text) {
  if (text.empty()) return listenError(text, "empty (write HOST:PORT or :PORT)");
  ListenAddress out{};
  std::string_view rest;
  if (text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return listenError(text, "missing ']'");
    const std::string_view host = text.substr(1, close - 1);
    if (host.empty()) return listenError(text, "empty host between [ and ]");
    if (host.find(':') == std::string_view::npos) {
      return listenError(text, "brackets are only for IPv6 addresses");
    }
    for (char c : host) {
      if (!isIpv6Char(c)) return listenError(text, "invalid character in IPv6 address");
    }
    out.host = host;
    rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') return listenError(text, "missing :PORT after ']'");
    rest.remove_prefix(1);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return listenError(text, "missing :PORT");
    const std::string_view host = text.substr(0, colon);
    if (host.find(':') != std::string_view::npos) {
      return listenError(text, "an IPv6 address must be in brackets, e.g. [::1]:19110");
    }
    for (char c : host) {
      if (!isHostChar(c)) return listenError(text, "invalid character in host");
    }
    out.host = host;
    rest = text.substr(colon + 1);
  }
  if (rest.empty()) return listenError(text, "missing port");
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), port);
  if (ec == std::errc::result_out_of_range ||
      (ec == std::errc{} && end == rest.data() + rest.size() && port > 65535)) {
    return listenError(text, "port must be 0..65535");
  }
  if (ec != std::errc{} || end != rest.data() + rest.size()) {
    return listenError(text, "port must be a decimal number 0..65535");
  }
  out.port = static_cast<std::uint16_t>(port);
  return out;
}

std::string formatListen(const ListenAddress& address) {
  std::string out;
  if (address.host.find(':') != std::string::npos) {
    out = "[" + address.host + "]";
  } else {
    out = address.host;
  }
  out += ':';
  out += std::to_string(address.port);
  return out;
}

}  // namespace fabricmon
