#pragma once
// The HTTP listen address (`web.listen`, `--listen`).

#include <cstdint>
#include <string>
#include <string_view>

#include "model/result.hpp"

namespace fabricmon {

struct ListenAddress {
  std::string host;    ///< name or IP literal without brackets; "" = all addresses
  std::uint16_t port;  ///< 0 = let the kernel pick a free port

  bool operator==(const ListenAddress&) const = default;
};

/// Parses `HOST:PORT`, `:PORT` (all addresses) or `[IPV6]:PORT` (`[::1]:19110`,
/// `[fe80::1%eth0]:19110`), port 0..65535 in decimal. An IPv6 literal must be bracketed, as in a
/// URL (RFC 3986 §3.2.2). The host is checked for allowed characters only; it is resolved when the
/// daemon binds.
Result<ListenAddress> parseListen(std::string_view text);

/// The text parseListen reads back to the same value (brackets around IPv6 literals).
std::string formatListen(const ListenAddress& address);

}  // namespace fabricmon
