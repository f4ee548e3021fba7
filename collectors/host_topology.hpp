#pragma once
// Where each RDMA device sits on the host's PCI tree: its function, NUMA node, VF/PF, PCIe link,
// and the GPUs behind the same PCIe switch or root port. Read from sysfs under the configured root
// (drivers/pci/pci-sysfs.c: class, vendor, numa_node, physfn, current_link_*/max_link_*), so the
// fixtures and the simulator drive the same code as a real node.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/sources/sysfs.hpp"
#include "collectors/topology.hpp"

namespace fabricmon {

struct PciPlacement {
  std::string pciAddress;          ///< of the device's PCI function; "" when it has no device link
  std::string numaNode;            ///< "" when the kernel does not know (-1) or the file is absent
  bool virtualFunction = false;    ///< SR-IOV VF (a physfn link exists)
  std::string physicalFunction;    ///< the VF's PF address; "" for a PF
  std::vector<std::string> gpus;   ///< GPUs behind the nearest shared switch or root port, sorted
  std::optional<unsigned> widthCurrent, widthMax;        ///< lanes; max = min(own, upstream port's)
  std::optional<double> speedCurrentGts, speedMaxGts;    ///< GT/s; max likewise
};

/// A GPU: an NVIDIA (0x10de) 3D/VGA controller or an AMD (0x1002) display/VGA controller.
struct GpuFunction {
  std::string pciAddress;
  std::string path;  ///< resolved, relative to the sysfs root ("devices/pci0000:16/.../0000:18:00.0")
};

class HostTopology {
 public:
  explicit HostTopology(std::shared_ptr<const SysfsRoot> sysfs) : sysfs_(std::move(sysfs)) {}
  /// The placement of every device of `topology`, by device name. The GPUs and each device's
  /// place are looked up again only when the topology's generation changes or the device was
  /// re-created (a GPU is not hot-plugged without the NICs' discovery noticing something too);
  /// the current PCIe link width and speed are read at every call (a link can retrain).
  std::map<std::string, PciPlacement> read(const Topology& topology);
  const std::vector<GpuFunction>& gpus() const { return gpus_; }

 private:
  struct Placed {
    uint64_t identity = 0;
    PciPlacement placement;  ///< without the current link
    std::unique_ptr<CounterFile> currentWidth, currentSpeed;  ///< null when there is no PCI function
  };
  /// Everything of a device's placement but the current link, and its PCI function's directory.
  std::pair<PciPlacement, std::string> place(const std::string& device) const;

  std::shared_ptr<const SysfsRoot> sysfs_;
  std::vector<GpuFunction> gpus_;
  uint64_t gpusGeneration_ = 0;
  std::map<std::string, Placed> placed_;
};

/// One PCI function on the way from a root port down to an RDMA device's function.
struct PciHop {
  std::string pciAddress;  ///< "0000:17:00.0"
  std::string path;        ///< resolved, relative to the sysfs root
};
/// The PCI functions from the root port (first) down to the RDMA device's own function (last),
/// read from the resolved `class/infiniband/<device>/device` path (the same walk as the GPU
/// affinity above). Empty when the device has no PCI function (rxe, siw).
std::vector<PciHop> pciChain(const SysfsRoot& sysfs, const std::string& device);

/// Every GPU function below devices/ (PCI domains, bridges, functions: at most 12 levels deep).
std::vector<GpuFunction> findGpus(const SysfsRoot& sysfs);
/// "32.0 GT/s PCIe" -> 32.0; "Unknown" and anything else -> nullopt.
std::optional<double> parsePcieSpeed(std::string_view text);
/// `current_link_width` / `max_link_width`: "16" -> 16; 0 (link down), above 32 or anything else ->
/// nullopt.
std::optional<unsigned> parsePcieWidth(std::string_view text);

}  // namespace fabricmon
