// `lldpcli -f json0 show neighbors details`, run as a child process without a shell
// (collectors/sources/child_process.hpp): a fixed environment and a deadline, so a hung lldpd costs
// one failed poll of one collector, never a stuck thread or a zombie.
#include <sys/stat.h>

#include "collectors/sources/child_process.hpp"
#include "collectors/sources/lldp_source.hpp"

namespace fabricmon {
namespace {

constexpr size_t kMaxOutput = 8 << 20;  // a node with hundreds of neighbours prints well under 1 MiB
constexpr std::string_view kDefaultSocket = "/run/lldpd.socket";  // lldpd(8), LLDPD_CTL_SOCKET

class LldpcliSource final : public LldpSource {
 public:
  LldpcliSource(std::filesystem::path program, std::optional<std::string> socket, std::chrono::milliseconds timeout)
      : program_(std::move(program)), socket_(std::move(socket)), timeout_(timeout) {}

  Result<std::vector<LldpNeighbor>> neighbors() override {
    struct stat st{};
    if (::stat(program_.c_str(), &st) != 0) {
      return Error{program_.string() + " not found (no lldpd on this node; Debian: apt-get install lldpd)", ENOENT};
    }
    const std::string socket = socket_.value_or(std::string(kDefaultSocket));
    if (::stat(socket.c_str(), &st) != 0) {
      return Error{"no lldpd control socket at " + socket + " (lldpd is not running)", ENOENT};
    }
    auto text = run(socket);
    if (!text) return text.error();
    return parseLldpJson0(*text);
  }

 private:
  Result<std::string> run(const std::string& socket) {
    const std::string program = program_.string();
    ChildProcessSpec spec;
    spec.argv = {program, "-u", socket, "-f", "json0", "show", "neighbors", "details"};
    spec.env = {"LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"};
    spec.timeout = timeout_;
    spec.maxOutput = kMaxOutput;
    auto child = runChildProcess(spec);
    if (!child) {
      // The program was there a moment ago (stat above): failing to start it now is a fault, not "no LLDP".
      const int errnum = child.error().errnum;
      return Error{child.error().message, errnum == ENOENT ? EIO : errnum};
    }
    if (!child->ok()) return Error{program + " " + child->describe(), EIO};
    return std::move(child->out);
  }

  std::filesystem::path program_;
  std::optional<std::string> socket_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

std::unique_ptr<LldpSource> makeLldpcliSource(std::filesystem::path program, std::optional<std::string> socket,
                                              std::chrono::milliseconds timeout) {
  return std::make_unique<LldpcliSource>(std::move(program), std::move(socket), timeout);
}

}  // namespace fabricmon
