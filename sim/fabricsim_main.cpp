// fabricsim: writes a simulated GPU node below --root and keeps its counters moving in real time.
//   fabricsim --root DIR [--scenario NAME] [--interval DUR] [--once] [--list-scenarios]
//             [--seed N] [--roce-ports N] [--no-infiniband] [--upstream-driver] [--fault-at DUR]
//             [--vendor mlx5|bnxt|ice|ionic] [--counter-refresh DUR]
// Point the daemon at it with --sysfs-root DIR/sys --ethtool-dir DIR/ethtool --dcb-dir DIR/dcb
// --module-eeprom-dir DIR/module_eeprom --fec-dir DIR/fec.

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>

#include "sim/simulator.hpp"

namespace {

using fabricmon::sim::SimOptions;
using fabricmon::sim::Simulator;

constexpr int kExitUsage = 2;

void usage(std::FILE* out) {
  std::fputs(
      "usage: fabricsim --root DIR [--scenario NAME] [--interval DUR] [--once] [--list-scenarios]\n"
      "                 [--seed N] [--roce-ports N] [--no-infiniband] [--upstream-driver]\n"
      "                 [--vendor mlx5|bnxt|ice|ionic] [--counter-refresh DUR] [--management-nic]\n"
      "                 [--fault-port N] [--lldp-pod NAME [--node-index N]]\n"
      "  --root DIR          write the node to DIR/sys, DIR/ethtool, DIR/dcb\n"
      "  --scenario NAME     fault scenario (default healthy; see --list-scenarios)\n"
      "  --interval DUR      tick period in real time: 250ms, 1s, 2m (default 1s)\n"
      "  --once              write the tree at t = 0 and exit\n"
      "  --seed N            RNG seed (default 1); same seed, same numbers\n"
      "  --roce-ports N      number of 400G RoCE ports, 0-16 (default 8)\n"
      "  --no-infiniband     leave out the InfiniBand NDR port\n"
      "  --upstream-driver   DCQCN parameters in debugfs cc_params instead of the OFED ecn/ tree\n"
      "  --fault-at DUR      healthy until DUR of simulated time, then the scenario's fault begins\n"
      "  --mixed-node        add two 200G BlueField-3 ports and a 100G Broadcom front-end NIC\n"
      "  --fault-port N      the RoCE port (0-based) the scenario's fault hits (default 0)\n"
      "  --lldp-pod NAME     write DIR/lldp/neighbors.json: the Ethernet ports face NAME-leaf<i> and others\n"
      "  --node-index N      ... on switch port swp<N> (default 1)\n"
      "  --management-nic    add a 100G ConnectX-6 Dx management NIC (eno1np0, no GPU beside it)\n"
      "  --vendor NAME       NIC of the RoCE ports: mlx5 (default), bnxt, ice, ionic; sets the ethtool -S\n"
      "                      names and the netdev's device/driver link\n"
      "  --counter-refresh DUR\n"
      "                      the NIC refreshes ethtool stats and hw_counters only every DUR of\n"
      "                      simulated time (0 = every tick; default: bnxt 1s, others 0)\n",
      out);
}

/// "250ms", "1s", "1.5s", "2m", "1h" in seconds; a bare number is seconds.
bool parseDuration(std::string_view text, double& seconds) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr == text.data()) return false;
  const std::string_view unit(ptr, static_cast<size_t>(text.data() + text.size() - ptr));
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1;
  else if (unit == "ms")
    scale = 1e-3;
  else if (unit == "m")
    scale = 60;
  else if (unit == "h")
    scale = 3600;
  else
    return false;
  seconds = value * scale;
  return seconds > 0;
}

bool parseUnsigned(std::string_view text, uint64_t& out) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

int main(int argc, char** argv) {
  SimOptions options;
  double interval = 1.0;
  bool once = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    std::string_view v;
    uint64_t n = 0;
    if (arg == "--help" || arg == "-h") {
      usage(stdout);
      return 0;
    } else if (arg == "--list-scenarios") {
      for (std::string_view s : Simulator::scenarios()) {
        std::printf("%-18.*s %.*s\n", static_cast<int>(s.size()), s.data(),
                    static_cast<int>(Simulator::describe(s).size()), Simulator::describe(s).data());
      }
      return 0;
    } else if (arg == "--once") {
      once = true;
    } else if (arg == "--no-infiniband") {
      options.infinibandPort = false;
    } else if (arg == "--upstream-driver") {
      options.upstreamDriver = true;
    } else if (arg == "--mixed-node") {
      options.mixedNode = true;
    } else if (arg == "--management-nic") {
      options.managementNic = true;
    } else if (arg == "--root" && value(v)) {
      options.root = std::string(v);
    } else if (arg == "--scenario" && value(v)) {
      options.scenario = std::string(v);
    } else if (arg == "--interval" && value(v)) {
      if (!parseDuration(v, interval)) {
        std::fprintf(stderr, "fabricsim: bad --interval '%.*s'\n", static_cast<int>(v.size()),
                     v.data());
        return kExitUsage;
      }
    } else if (arg == "--fault-at" && value(v)) {
      if (v != "0" && !parseDuration(v, options.faultAt)) {
        std::fprintf(stderr, "fabricsim: bad --fault-at '%.*s'\n", static_cast<int>(v.size()), v.data());
        return kExitUsage;
      }
    } else if (arg == "--vendor" && value(v)) {
      options.vendor = std::string(v);
    } else if (arg == "--counter-refresh" && value(v)) {
      double refresh = 0;
      if (v != "0" && !parseDuration(v, refresh)) {
        std::fprintf(stderr, "fabricsim: bad --counter-refresh '%.*s'\n", static_cast<int>(v.size()),
                     v.data());
        return kExitUsage;
      }
      options.counterRefresh = std::chrono::duration<double>(refresh);
    } else if (arg == "--seed" && value(v) && parseUnsigned(v, n)) {
      options.seed = n;
    } else if (arg == "--lldp-pod" && value(v) && !v.empty()) {
      options.lldpPod = std::string(v);
    } else if (arg == "--node-index" && value(v) && parseUnsigned(v, n) && n > 0 && n < 100000) {
      options.nodeIndex = static_cast<unsigned>(n);
    } else if (arg == "--fault-port" && value(v) && parseUnsigned(v, n) && n < 16) {
      options.faultPort = static_cast<unsigned>(n);
    } else if (arg == "--roce-ports" && value(v) && parseUnsigned(v, n) && n <= 16) {
      options.rocePorts = static_cast<unsigned>(n);
    } else {
      std::fprintf(stderr, "fabricsim: bad argument '%.*s'\n", static_cast<int>(arg.size()),
                   arg.data());
      usage(stderr);
      return kExitUsage;
    }
  }
  if (options.root.empty()) {
    std::fputs("fabricsim: --root is required\n", stderr);
    usage(stderr);
    return kExitUsage;
  }
  {
    const auto vendors = Simulator::vendors();
    if (std::find(vendors.begin(), vendors.end(), options.vendor) == vendors.end()) {
      std::fprintf(stderr, "fabricsim: unknown vendor '%s' (mlx5, bnxt, ice, ionic)\n",
                   options.vendor.c_str());
      return kExitUsage;
    }
  }
  if (Simulator::describe(options.scenario).empty()) {
    std::fprintf(stderr, "fabricsim: unknown scenario '%s' (see --list-scenarios)\n",
                 options.scenario.c_str());
    return kExitUsage;
  }

  // SIGINT/SIGTERM are blocked and collected with sigtimedwait, which doubles as the tick timer.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  sigprocmask(SIG_BLOCK, &stopSignals, nullptr);

  Simulator sim(options);
  if (auto st = sim.init(); !st) {
    std::fprintf(stderr, "fabricsim: %s\n", st.error().message.c_str());
    return 1;
  }
  const std::string root = options.root.string();
  std::printf("fabricsim: scenario %s, %zu RDMA ports below %s\n", options.scenario.c_str(),
              sim.ports().size(), root.c_str());
  std::printf("  %s NICs, counters refreshed every %g s (0 = every tick)\n",
              options.vendor.c_str(), sim.counterRefresh());
  std::printf("  fabricmon --sysfs-root %s/sys --ethtool-dir %s/ethtool --dcb-dir %s/dcb --module-eeprom-dir %s/module_eeprom --fec-dir %s/fec\n",
              root.c_str(), root.c_str(), root.c_str(), root.c_str(), root.c_str());
  for (const auto& t : sim.affected()) {
    std::printf("  affected: %s port %u (%s)%s\n", t.device.c_str(), t.port, t.interface.c_str(),
                t.priority ? (" priority " + std::to_string(*t.priority)).c_str() : "");
  }
  std::fflush(stdout);
  if (once) return 0;

  using Clock = std::chrono::steady_clock;
  auto last = Clock::now();
  auto next =
      last + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval));
  for (;;) {
    const auto wait = std::max(Clock::duration::zero(), next - Clock::now());
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
    timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    const int sig = sigtimedwait(&stopSignals, nullptr, &ts);
    if (sig == SIGINT || sig == SIGTERM) break;
    if (sig < 0 && errno == EINTR) continue;
    const auto now = Clock::now();
    if (now < next) continue;
    if (auto st = sim.tick(now - last); !st) {
      std::fprintf(stderr, "fabricsim: %s\n", st.error().message.c_str());
      return 1;
    }
    last = now;
    next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval));
    if (next < now) next = now;  // after a stall, do not try to catch up with a burst of ticks
  }
  std::printf("fabricsim: stopped at t = %.1f s\n", sim.now());
  return 0;
}
