#include "exporters/payload.hpp"

#include <zlib.h>

#include <climits>
#include <string_view>
#include <utility>

namespace fabricmon {
namespace {

// windowBits 15 + 16 selects the gzip wrapper instead of zlib's (zlib.h, deflateInit2).
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemLevel = 8;

}  // namespace

std::string gzipCompress(std::string_view data) {
  // One deflate call takes at most UINT_MAX input bytes; a /metrics body is a few MB at most.
  if (data.size() > UINT_MAX) return {};
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, kMemLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return {};
  }
  std::string out;
  // deflateBound covers the gzip header and trailer too, so one Z_FINISH call completes the stream.
  out.resize(deflateBound(&zs, static_cast<uLong>(data.size())));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  const size_t produced = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return {};
  out.resize(produced);
  return out;
}

Payload makePayload(std::string text, uint64_t generation) {
  std::string gz = gzipCompress(text);
  return Payload{std::move(text), std::move(gz), generation};
}

}  // namespace fabricmon
