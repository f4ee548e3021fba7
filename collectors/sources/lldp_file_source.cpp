// The LLDP neighbours from a file holding `lldpcli -f json0 show neighbors details` output: what
// the simulator writes for its node, and fixtures.
#include <fstream>
#include <sstream>

#include "collectors/sources/lldp_source.hpp"

namespace fabricmon {
namespace {

class LldpFileSource final : public LldpSource {
 public:
  explicit LldpFileSource(std::filesystem::path path) : path_(std::move(path)) {}

  Result<std::vector<LldpNeighbor>> neighbors() override {
    std::ifstream in(path_, std::ios::binary);
    // A file someone configured is expected to be there: its absence is a fault to show (a typo, the
    // agent that writes it stopped), not "no LLDP on this node".
    if (!in) {
      Error e = sysError("open " + path_.string(), errno == 0 ? ENOENT : errno);
      if (e.errnum == ENOENT) e.errnum = EIO;
      return e;
    }
    std::ostringstream text;
    text << in.rdbuf();
    // Parsed only when the bytes changed (neighbours change rarely; the JSON parse is most of the cost).
    if (last_ && text.view() == lastText_) return *last_;
    auto parsed = parseLldpJson0(text.view());
    if (!parsed) return Error{path_.string() + ": " + parsed.error().message, parsed.error().errnum};
    lastText_ = std::move(text).str();
    last_ = *parsed;
    return parsed;
  }

 private:
  std::filesystem::path path_;
  std::string lastText_;
  std::optional<std::vector<LldpNeighbor>> last_;
};

}  // namespace

std::unique_ptr<LldpSource> makeLldpFileSource(std::filesystem::path path) {
  return std::make_unique<LldpFileSource>(std::move(path));
}

}  // namespace fabricmon
