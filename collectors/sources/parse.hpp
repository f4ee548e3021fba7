#pragma once
// Strict parsers for the text the kernel prints. Anything that is not exactly a number is an error,
// never a guess: "N/A (no PMA)", an empty file or a value beyond 64 bits is a skipped sample.

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/result.hpp"

namespace fabricmon {

/// Removes leading and trailing ASCII whitespace.
std::string_view trim(std::string_view s);

/// An unsigned decimal counter ("12345\n"). Surrounding whitespace is allowed; nothing else is.
Result<uint64_t> parseCounter(std::string_view text);

/// The leading number of sysfs enum files such as `state` ("4: ACTIVE") or `phys_state` ("5: LinkUp").
Result<uint64_t> parseEnumNumber(std::string_view text);

/// A port `rate` ("400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)") in bytes per second.
Result<double> parseRateBytesPerSecond(std::string_view text);

}  // namespace fabricmon
