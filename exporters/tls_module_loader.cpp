#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "exporters/tls_module.hpp"

namespace fabricmon {
namespace {

// The directory of the running executable (/proc/self/exe), "" when it cannot be read.
std::string executableDir() {
  std::string path(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size());
  if (n <= 0 || static_cast<size_t>(n) >= path.size()) return {};
  path.resize(static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::vector<std::string> candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("FABRICMON_TLS_MODULE"); env != nullptr && *env != '\0') {
    out.emplace_back(env);
  }
  if (const std::string dir = executableDir(); !dir.empty()) {
    out.push_back(dir + "/" + std::string(kTlsModuleFile));  // the build tree
    // Installed: PREFIX/bin/fabricmon and PREFIX/lib/fabricmon/ (deploy/CMakeLists.txt).
    out.push_back(dir + "/../lib/fabricmon/" + std::string(kTlsModuleFile));
  }
  return out;
}

}  // namespace

Result<const TlsModule*> loadTlsModuleFrom(const std::vector<std::string>& paths) {
  std::string tried;
  for (const std::string& path : paths) {
    // RTLD_NODELETE: servers and connections made by the module may live until the process ends.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == nullptr) {
      const char* why = dlerror();
      // dlerror() names the file ("PATH: cannot open shared object file: ...").
      tried += (tried.empty() ? "" : "; ") + (why != nullptr ? std::string(why) : path + ": unknown error");
      continue;
    }
    using Entry = const TlsModule* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "fabricmon_tls_module_v1"));
    if (entry == nullptr) return Error{path + " has no fabricmon_tls_module_v1 (not fabricmon's TLS module)", ENOSYS};
    return entry();
  }
  return Error{"TLS and basic auth need " + std::string(kTlsModuleFile) + ", which was not found (" +
                   (tried.empty() ? std::string("no place to look") : tried) + ")",
               ENOENT};
}

Result<const TlsModule*> tlsModule() {
  // Loaded once; a failure is remembered too (the module does not appear while we run).
  static const Result<const TlsModule*> loaded = loadTlsModuleFrom(candidates());
  return loaded;
}

}  // namespace fabricmon
