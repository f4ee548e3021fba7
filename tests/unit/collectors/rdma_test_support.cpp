#include "rdma_test_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace fabricmon::testing {

namespace fs = std::filesystem;

fs::path fixtureDir() { return fs::path(FABRICMON_FIXTURE_DIR); }

namespace {

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

fs::path stripToSys(const std::string& path) {
  fs::path out;
  bool found = false;
  for (const auto& part : fs::path(path)) {
    if (found) {
      out /= part;
    } else if (part == "sys") {
      found = true;
    }
  }
  if (!found) throw std::runtime_error("ttar path without a sys/ component: " + path);
  return out;
}

void replaceAll(std::string& s, std::string_view from, std::string_view to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
}

}  // namespace

void unpackTtar(const fs::path& archive, const fs::path& dest) {
  std::ifstream in(archive);
  if (!in) throw std::runtime_error("cannot open " + archive.string());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);

  // Modes are applied after everything is written so that a read-only directory can still be filled.
  std::vector<std::pair<fs::path, unsigned>> modes;
  fs::path current;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty() || line[0] == '#') continue;
    if (startsWith(line, "Directory: ")) {
      const fs::path rel = stripToSys(line.substr(11));
      current = dest / rel;
      fs::create_directories(current);
    } else if (startsWith(line, "Path: ")) {
      current = dest / stripToSys(line.substr(6));
      fs::create_directories(current.parent_path());
      if (++i >= lines.size()) throw std::runtime_error("truncated ttar after " + line);
      const std::string& next = lines[i];
      if (startsWith(next, "SymlinkTo: ")) {
        fs::create_symlink(next.substr(11), current);
        continue;
      }
      if (!startsWith(next, "Lines: ")) throw std::runtime_error("expected Lines: in " + archive.string());
      const size_t count = std::stoul(next.substr(7));
      std::string content;
      for (size_t k = 0; k < count; ++k) {
        if (++i >= lines.size()) throw std::runtime_error("truncated ttar content");
        std::string l = lines[i];
        if (k + 1 == count && l.size() >= 3 && l.compare(l.size() - 3, 3, "EOF") == 0) {
          l.resize(l.size() - 3);
          content += l;
        } else {
          content += l;
          content += '\n';
        }
      }
      replaceAll(content, "NULLBYTE", std::string_view("\0", 1));
      std::ofstream out(current, std::ios::binary | std::ios::trunc);
      out << content;
      if (!out) throw std::runtime_error("cannot write " + current.string());
    } else if (startsWith(line, "Mode: ")) {
      modes.emplace_back(current, std::stoul(line.substr(6), nullptr, 8));
    } else {
      throw std::runtime_error("unexpected ttar line: " + line);
    }
  }
  for (auto it = modes.rbegin(); it != modes.rend(); ++it) {
    fs::permissions(it->first, static_cast<fs::perms>(it->second), fs::perm_options::replace);
  }
}

TempTree::TempTree() {
  std::string tmpl = (fs::temp_directory_path() / "fabricmon-rdma-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  root_ = tmpl;
}

TempTree::~TempTree() {
  std::error_code ec;
  // Restore modes a test may have dropped so that removal works for a non-root user too.
  for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
  fs::remove_all(root_, ec);
}

void TempTree::unpack(std::string_view rel) const { unpackTtar(fixtureDir() / rel, root_); }

void TempTree::write(std::string_view rel, std::string_view content) const {
  const fs::path p = root_ / rel;
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << content;
}

std::optional<double> Poll::value(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

size_t Poll::count(std::string_view family) const {
  size_t n = 0;
  for (const auto& s : samples) n += s.series->family->name == family ? 1 : 0;
  return n;
}

Poll poll(Collector& collector, const Topology& topology, ErrorTracker& tracker) {
  Poll p;
  Batch batch;
  CollectOutput out(batch, tracker);
  p.status = collector.collect(topology, out);
  p.errors = out.errorCount();
  p.roster = out.finish();
  p.samples = batch.samples;
  for (const auto& s : batch.unread) p.unread.insert(s->key);
  for (const auto& s : p.samples) {
    if (!p.values.emplace(s.series->key, s.value).second) {
      throw std::runtime_error("duplicate series in one run: " + s.series->key);
    }
  }
  return p;
}

size_t openFdCount() {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    (void)e;
    ++n;
  }
  return n;
}

size_t openFileFdCount() {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (!fs::is_directory(e.path(), ec)) ++n;  // follows the descriptor's link
  }
  return n;
}

}  // namespace fabricmon::testing
