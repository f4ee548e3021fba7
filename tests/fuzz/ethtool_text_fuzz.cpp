// The `ethtool -S` text of the --ethtool-dir files (collectors/sources/ethtool_text.hpp), parsed
// whole and in place (the second parse of the same text must find the names unchanged).
#include <cstdint>
#include <set>
#include <string>

#include "collectors/sources/ethtool_text.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::asText(data, size);
  auto r = parseEthtoolText(text);
  EthtoolStats in;
  auto st = parseEthtoolTextInto(text, in);
  FUZZ_CHECK(bool(r) == bool(st));
  if (!r) {
    FUZZ_CHECK(in.size() == 0);
    return 0;
  }
  std::set<std::string> names;
  FUZZ_CHECK(r->size() == 0 || r->names->size() == r->values.size());
  for (const auto& [name, value] : r->pairs()) FUZZ_CHECK(names.insert(std::string(name)).second);
  FUZZ_CHECK(in.pairs() == r->pairs());
  // Again in place: same names, same order. (A text with a repeated name, dropped by the first
  // parse, may report "changed": that is the conservative answer the header allows.)
  auto again = parseEthtoolTextInto(text, in);
  FUZZ_CHECK(again);
  if (r->issues.empty()) FUZZ_CHECK(in.namesUnchanged);
  FUZZ_CHECK(in.pairs() == r->pairs());
  // Half of the text after the whole: names from the first difference on are checked again.
  auto half = parseEthtoolTextInto(text.substr(0, text.size() / 2), in);
  if (half) {
    std::set<std::string> seen;
    for (const auto& [name, value] : in.pairs()) FUZZ_CHECK(seen.insert(std::string(name)).second);
  }
  return 0;
}
