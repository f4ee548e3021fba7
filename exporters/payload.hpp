#pragma once
// The rendered /metrics body of one snapshot, built once and shared by every scrape until the next
// snapshot (ARCHITECTURE.md "Exporters"), so scrape cost does not grow with the number of scrapers.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace fabricmon {

struct Payload {
  std::string text;     ///< Prometheus text format 0.0.4
  std::string gzip;     ///< `text` compressed in gzip format (RFC 1952); empty if compression failed
  uint64_t generation;  ///< snapshot generation the text was rendered from
};

/// Compresses `text` once; a compression failure leaves `gzip` empty and the text is served as is.
Payload makePayload(std::string text, uint64_t generation);

/// The gzip (RFC 1952) encoding of `data`, or "" if zlib fails.
std::string gzipCompress(std::string_view data);

}  // namespace fabricmon
