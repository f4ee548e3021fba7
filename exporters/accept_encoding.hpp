#pragma once
// Content negotiation for the /metrics body (RFC 9110 §12.5.3 Accept-Encoding).

#include <string_view>

namespace fabricmon {

/// True when an Accept-Encoding header value allows a gzip body: "gzip" (or "x-gzip") with q > 0,
/// or "*" with q > 0 when gzip is not named. An absent or empty header means identity only.
bool acceptsGzip(std::string_view acceptEncoding);

}  // namespace fabricmon
