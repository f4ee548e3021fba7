#include "model/families/pcie.hpp"

#include <array>

namespace fabricmon::families::pcie {

using enum MetricType;

const FamilyDef kAerErrors{
    "fabricmon_pcie_aer_errors_total",
    "PCIe AER errors the PCI function detected, per error type, from its aer_dev_correctable, "
    "aer_dev_nonfatal and aer_dev_fatal files (drivers/pci/pcie/aer.c). position: function (the "
    "RDMA device's own), switch_port or root_port (the ports above it); device: the RDMA devices "
    "whose path runs through it (comma-separated when a port is shared); severity "
    "correctable|nonfatal|fatal; error: the kernel's name (RxErr, BadTLP, CmpltTO, ...), bit_N for "
    "a "
    "bit the kernel has no name for, total for the file's TOTAL_ERR_* line (errors reported, not "
    "bits: do not add it to the others).",
    kCounter, "errors", "device,pci_address,position,severity,error"};

const std::array<const FamilyDef*, 1> kAll{&kAerErrors};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::pcie
