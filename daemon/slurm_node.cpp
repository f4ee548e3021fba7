#include "daemon/slurm_node.hpp"

#include <unistd.h>

#include <cstdlib>

#include "collectors/sources/child_process.hpp"

namespace fabricmon::health {
namespace {

// Flags after which a node is not fabricmon's to resume: down, failing, being rebooted or powered,
// in maintenance, or not talking to the controller (slurm/src/common/slurm_protocol_defs.c,
// node_state_string_complete()).
constexpr std::string_view kNotOursToResume[] = {"NOT_RESPONDING", "FAIL",          "REBOOT_REQUESTED",
                                                 "REBOOT_ISSUED",  "MAINT",         "POWERED_DOWN",
                                                 "POWERING_DOWN",  "POWERING_UP",   "POWER_DOWN",
                                                 "INVALID_REG"};

std::string field(std::string_view line, std::string_view key) {
  // Fields are " Key=value"; values other than Reason have no spaces (scontrol -o).
  const std::string needle = " " + std::string(key) + "=";
  std::string padded = " " + std::string(line);
  const auto at = padded.find(needle);
  if (at == std::string::npos) return {};
  const auto start = at + needle.size();
  const auto end = padded.find(' ', start);
  return padded.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::vector<std::string> scontrolEnv() {
  std::vector<std::string> env{"LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"};
  // A site (or a test) whose slurm.conf is not /etc/slurm/slurm.conf exports SLURM_CONF in its
  // HealthCheckProgram wrapper; scontrol must see the same controller.
  if (const char* conf = std::getenv("SLURM_CONF"); conf != nullptr && *conf != 0) {
    env.push_back(std::string("SLURM_CONF=") + conf);
  }
  return env;
}

Result<std::string> scontrol(const HealthCheckConfig& config, std::vector<std::string> args) {
  ChildProcessSpec spec;
  spec.argv.push_back(config.slurm.scontrol);
  for (auto& a : args) spec.argv.push_back(std::move(a));
  spec.env = scontrolEnv();
  spec.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(config.slurm.timeout);
  spec.maxOutput = size_t{1} << 20;
  auto child = runChildProcess(spec);
  if (!child) return child.error();
  if (!child->ok()) return Error{config.slurm.scontrol + " " + spec.argv[1] + " " + child->describe(), EIO};
  return std::move(child->out);
}

}  // namespace

std::string_view actionName(SlurmAction a) {
  switch (a) {
    case SlurmAction::kNone: return "none";
    case SlurmAction::kDrain: return "drain";
    case SlurmAction::kResume: return "resume";
  }
  return "none";
}

Result<SlurmNode> parseScontrolNode(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  SlurmNode node;
  node.name = field(line, "NodeName");
  const std::string state = field(line, "State");
  if (node.name.empty() || state.empty()) {
    return Error{"scontrol show node: no NodeName=/State= in \"" + std::string(line.substr(0, 200)) + "\"", EPROTO};
  }
  size_t start = 0;
  bool first = true;
  while (start <= state.size()) {
    const auto plus = state.find('+', start);
    const std::string part = state.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    if (first) {
      node.base = part;
      first = false;
    } else if (!part.empty()) {
      node.flags.insert(part);
    }
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  // Reason is the last field and the only one with spaces: "Reason=text [user@2026-11-25T23:39:54]".
  if (const auto at = line.find(" Reason="); at != std::string_view::npos) {
    std::string reason(line.substr(at + 8));
    while (!reason.empty() && (reason.back() == ' ' || reason.back() == '\r')) reason.pop_back();
    if (reason.ends_with(']')) {
      if (const auto open = reason.rfind(" ["); open != std::string::npos &&
                                                 reason.find('@', open) != std::string::npos) {
        reason.erase(open);
      }
    }
    if (reason != "(null)" && reason != "none") node.reason = std::move(reason);
  }
  return node;
}

SlurmDecision decide(const SlurmNode& node, const Verdict& verdict, const std::string& reason) {
  SlurmDecision d;
  switch (verdict.status) {
    case Status::kUnknown:
      d.why = "the fabricmon daemon could not be asked: node left as it is";
      return d;
    case Status::kProblem:
      if (node.drainedByUs()) {
        if (node.reason == reason) {
          d.why = "already drained by fabricmon";
        } else {
          // The worst finding changed: say the current one (the drain stays fabricmon's).
          d.action = SlurmAction::kDrain;
          d.reason = reason;
          d.why = "drained by fabricmon; reason updated";
        }
        return d;
      }
      if (node.drained()) {
        d.why = "drained by someone else (\"" + node.reason + "\"): left alone";
        return d;
      }
      d.action = SlurmAction::kDrain;
      d.reason = reason;
      d.why = "drain-worthy finding active";
      return d;
    case Status::kOk:
      if (!node.drained()) {
        d.why = "not drained, nothing drain-worthy";
        return d;
      }
      if (!node.drainedByUs()) {
        d.why = "drained by someone else (\"" + node.reason + "\"): left alone";
        return d;
      }
      if (node.base == "DOWN" || node.base == "FUTURE" || node.base == "UNKNOWN") {
        d.why = "drained by fabricmon but " + node.base + " for another cause: not resumed";
        return d;
      }
      for (std::string_view flag : kNotOursToResume) {
        if (node.flags.contains(std::string(flag))) {
          d.why = "drained by fabricmon but " + std::string(flag) + ": not resumed";
          return d;
        }
      }
      d.action = SlurmAction::kResume;
      d.why = "drained by fabricmon and nothing drain-worthy is left";
      return d;
  }
  return d;
}

std::string slurmNodeName(const HealthCheckConfig& config) {
  if (config.slurm.nodeName) return *config.slurm.nodeName;
  if (const char* env = std::getenv("SLURMD_NODENAME"); env != nullptr && *env != 0) return env;
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) return "localhost";
  std::string name(host);
  return name.substr(0, name.find('.'));
}

Result<SlurmDecision> applySlurm(const HealthCheckConfig& config, const Verdict& verdict, const std::string& reason,
                                 bool dryRun, std::string& nodeName) {
  nodeName = slurmNodeName(config);
  if (verdict.status == Status::kUnknown) return decide(SlurmNode{}, verdict, reason);
  auto shown = scontrol(config, {"-o", "show", "node", nodeName});
  if (!shown) return shown.error();
  auto node = parseScontrolNode(*shown);
  if (!node) return node.error();
  SlurmDecision d = decide(*node, verdict, reason);
  if (dryRun || d.action == SlurmAction::kNone) return d;
  std::vector<std::string> args{"update", "nodename=" + nodeName};
  if (d.action == SlurmAction::kDrain) {
    args.push_back("state=drain");
    args.push_back("reason=" + d.reason);
  } else {
    args.push_back("state=resume");
  }
  if (auto done = scontrol(config, std::move(args)); !done) return done.error();
  return d;
}

}  // namespace fabricmon::health
