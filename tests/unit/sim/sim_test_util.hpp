#pragma once
// Reading the simulated tree the way the daemon does, for the simulator tests.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "sim/simulator.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon::sim::test {

using TempDir = fabricmon::testing::TempDir;

std::string readFile(const std::filesystem::path& p);
/// The file's text without trailing whitespace, as sysfs readers trim it.
std::string readTrimmed(const std::filesystem::path& p);
/// A strictly parsed unsigned counter file; nullopt when the text is not exactly a number.
std::optional<uint64_t> readCounter(const std::filesystem::path& p);

/// Parses `ethtool -S` text. Returns nullopt (and the offending line in `error`) unless the first
/// line is "NIC statistics:" and every other line is "     name: <unsigned>" with a unique name.
std::optional<std::map<std::string, uint64_t>> parseEthtool(const std::string& text,
                                                            std::string* error = nullptr);

/// Every counter of the node: "<dev>/counters/<name>", "<dev>/hw_counters/<name>" (not lifespan),
/// "<if>/carrier_changes" (+ up/down counts) and "<if>/ethtool/<stat>" (not the two PCI-stall
/// gauges).
using Snapshot = std::map<std::string, uint64_t>;
Snapshot snapshot(const Simulator& sim);

/// after[key] - before[key] as a signed number (both must exist).
double delta(const Snapshot& before, const Snapshot& after, const std::string& key);

}  // namespace fabricmon::sim::test
