#pragma once
// Test helpers of the sysfs RDMA group: unpacks the ttar fixtures (tests/fixtures/README.md) into a
// temporary directory and runs a collector once, keyed by series key for exact assertions.

#include <filesystem>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.hpp"
#include "collectors/error_tracker.hpp"
#include "model/sample.hpp"

namespace fabricmon::testing {

/// Directory of tests/fixtures (compiled in as FABRICMON_FIXTURE_DIR).
std::filesystem::path fixtureDir();

/// Unpacks a ttar archive (github.com/ideaship/ttar: Directory:/Path:/Lines:/SymlinkTo:/Mode: blocks,
/// an "EOF" suffix on the last line = no trailing newline, NULLBYTE = '\0') below `dest`. Everything up to
/// and including the first "sys" path component is dropped, so `dest` stands in for /sys.
/// Throws std::runtime_error on a malformed archive (tests only).
void unpackTtar(const std::filesystem::path& archive, const std::filesystem::path& dest);

/// A fresh directory below the system temp dir, removed (with everything in it) on destruction.
class TempTree {
 public:
  TempTree();
  ~TempTree();
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  const std::filesystem::path& root() const { return root_; }
  /// Unpacks tests/fixtures/<rel> into the tree.
  void unpack(std::string_view rel) const;
  /// Writes `content` to root/<rel> in place (same inode, as sysfs updates values), creating parents.
  void write(std::string_view rel, std::string_view content) const;

 private:
  std::filesystem::path root_;
};

/// One collector run: the samples by series key, the per-file error count and the status.
struct Poll {
  CollectStatus status = CollectStatus::kFailed;
  std::vector<Sample> samples;
  SeriesRosterPtr roster;                ///< keeps the samples' series alive
  std::map<std::string, double> values;  ///< by Series::key
  std::set<std::string> unread;          ///< Batch::unread, by Series::key
  uint64_t errors = 0;

  std::optional<double> value(const std::string& key) const;
  bool has(const std::string& key) const { return values.count(key) != 0; }
  /// Number of samples whose family name is `family`.
  size_t count(std::string_view family) const;
};

Poll poll(Collector& collector, const Topology& topology, ErrorTracker& tracker);

/// Number of open file descriptors of this process (to see that counter files are closed).
size_t openFdCount();
/// Those of them that are not directories: the counter files kept open, without the O_PATH
/// directory handles the per-poll stats and the files beyond the cap look up below.
size_t openFileFdCount();

}  // namespace fabricmon::testing
