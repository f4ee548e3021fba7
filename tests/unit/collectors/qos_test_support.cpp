#include "qos_test_support.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fabricmon::qos_test {

void writeFile(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!f) ADD_FAILURE() << "write " << path;
}

namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string unpackTtar(const std::filesystem::path& archive, const std::filesystem::path& dest) {
  std::ifstream in(archive);
  if (!in) return "cannot open " + archive.string();
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);

  namespace fs = std::filesystem;
  std::error_code ec;
  std::string path;  // of the block being read
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.empty() || l[0] == '#') continue;
    if (startsWith(l, "Directory: ")) {
      fs::create_directories(dest / l.substr(11), ec);
      if (ec) return "mkdir " + l.substr(11) + ": " + ec.message();
    } else if (startsWith(l, "Path: ")) {
      path = l.substr(6);
      fs::create_directories((dest / path).parent_path(), ec);
    } else if (startsWith(l, "SymlinkTo: ")) {
      if (path.empty()) return "SymlinkTo without Path at line " + std::to_string(i + 1);
      fs::create_symlink(l.substr(11), dest / path, ec);
      if (ec) return "symlink " + path + ": " + ec.message();
      path.clear();
    } else if (startsWith(l, "Lines: ")) {
      if (path.empty()) return "Lines without Path at line " + std::to_string(i + 1);
      const size_t n = std::stoul(l.substr(7));
      if (i + n >= lines.size()) return "content of " + path + " runs past the end";
      std::string content;
      for (size_t k = 1; k <= n; ++k) {
        content += lines[i + k];
        content += '\n';
      }
      i += n;
      if (n > 0 && content.size() >= 4 && content.compare(content.size() - 4, 4, "EOF\n") == 0) {
        content.resize(content.size() - 4);  // ttar marks a missing final newline this way
      }
      writeFile(dest / path, content);
    } else if (startsWith(l, "Mode: ")) {
      if (!path.empty()) {
        const auto mode = static_cast<mode_t>(std::stoul(l.substr(6), nullptr, 8));
        ::chmod((dest / path).c_str(), mode);
        path.clear();
      }
    } else {
      return "unexpected ttar line " + std::to_string(i + 1) + ": " + l;
    }
  }
  return "";
}

std::optional<double> valueOf(const std::vector<Sample>& samples, std::string_view key) {
  std::optional<double> found;
  for (const auto& s : samples) {
    if (s.series->key == key) {
      if (found) ADD_FAILURE() << "series " << key << " emitted twice";
      found = s.value;
    }
  }
  return found;
}

size_t countFamily(const std::vector<Sample>& samples, std::string_view family) {
  size_t n = 0;
  for (const auto& s : samples) n += s.series->family->name == family ? 1 : 0;
  return n;
}

size_t openFdCount() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;  // the iterator's own descriptor is counted every time, so differences are exact
}

void replaceFile(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path tmp = path.string() + ".new";
  writeFile(tmp, content);
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) ADD_FAILURE() << "rename " << tmp << ": " << ec.message();
}

}  // namespace fabricmon::qos_test
