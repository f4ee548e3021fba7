#pragma once
// Prometheus label values and JSON strings must be valid UTF-8 (exposition format spec; RFC 8259 §8.1),
// while sysfs and ethtool strings are arbitrary bytes.

#include <string>
#include <string_view>

namespace fabricmon {

/// True when `s` is well-formed UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
bool isValidUtf8(std::string_view s);

/// `s` with every ill-formed sequence replaced by U+FFFD.
std::string toValidUtf8(std::string_view s);

}  // namespace fabricmon
