#pragma once
// `fabricmon demo`: the simulator writes a GPU node into a temporary directory, ticking on its own
// thread, and the real daemon reads it through the file sources. The directory goes away on exit,
// or at the next demo's start when this one was killed (daemon/demo_tree.hpp).

#include <filesystem>
#include <memory>
#include <string>

#include "config/config.hpp"
#include "daemon/demo_options.hpp"
#include "daemon/demo_tree.hpp"
#include "daemon/periodic_task.hpp"
#include "model/result.hpp"

namespace fabricmon {

namespace sim {
class Simulator;
}
class MadSource;
class SysfsRoot;

class DemoNode {
 public:
  /// An unknown scenario or vendor, or a fault port that is not a RoCE port, is an Error with
  /// errnum EINVAL (bad usage).
  static Result<std::unique_ptr<DemoNode>> create(boost::asio::io_context& io, const DemoOptions& demo,
                                                  Duration tick);
  ~DemoNode();

  /// Points the sources at the simulated node and, unless the user chose a listen address,
  /// binds to loopback only.
  void applyTo(Config& config) const;
  /// The far end of the simulated InfiniBand port, answering MADs from the node's sysfs tree
  /// (sim/demo_mad_source.hpp): the demo has no umad device.
  std::shared_ptr<MadSource> madSource(std::shared_ptr<const SysfsRoot> sysfs) const;
  void stop();

 private:
  DemoNode() = default;

  std::string pod_;
  unsigned nodeIndex_ = 1;

  std::unique_ptr<DemoTree> tree_;
  std::filesystem::path dir_;  ///< tree_'s path
  std::shared_ptr<sim::Simulator> simulator_;
  std::unique_ptr<PeriodicTask> ticker_;
};

}  // namespace fabricmon
