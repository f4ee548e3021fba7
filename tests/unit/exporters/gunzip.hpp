#pragma once
// Test helper: inflates a gzip stream with zlib, independently of the code under test.

#include <zlib.h>

#include <string>

namespace fabricmon::test_util {

/// The decompressed bytes, or a "<...failed>" marker that cannot equal real exposition text when the
/// stream is not one complete, valid gzip member.
inline std::string gunzip(const std::string& gz) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return "<inflateInit2 failed>";
  std::string out;
  char buf[4096];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
  }
  const bool complete = rc == Z_STREAM_END && zs.avail_in == 0;
  inflateEnd(&zs);
  return complete ? out : "<inflate failed>";
}

}  // namespace fabricmon::test_util
