#pragma once
// Test helpers for the secured endpoint: a temporary directory, a CA with server and client
// certificates made by the `openssl` command at test time, bcrypt hashes made with crypt_r, and
// curl runs. Header-only; shared by the web-config, basic-auth and TLS server tests.

#include <crypt.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.hpp"

namespace fabricmon::test_util {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "fabricmon_tls_XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }

 private:
  std::string path_;
};

inline std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline bool haveProgram(const std::string& name) {
  std::string out;
  return fabricmon::testing::runCommand({"sh", "-c", "command -v " + name}, &out) == 0;
}

/// A bcrypt hash of `password` with a fresh random salt (crypt_gensalt_rn reads the kernel's
/// random source when given no bytes).
inline std::string bcryptHash(const std::string& password, unsigned long cost = 10) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", cost, nullptr, 0, salt, sizeof salt) == nullptr) return "";
  auto data = std::make_unique<crypt_data>();
  const char* hash = crypt_r(password.c_str(), salt, data.get());
  return hash != nullptr ? hash : "";
}

/// ca.crt/ca.key, server.crt/server.key (localhost, 127.0.0.1), client.crt/client.key (clientAuth)
/// and other-ca.crt (a CA that signed nothing here) in `dir`. Empty on success, else what failed.
inline std::string makeCertificates(const std::string& dir) {
  const std::string script = R"(set -e
cd ")" + dir + R"("
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
key ca.key
openssl req -x509 -new -key ca.key -out ca.crt -days 2 -subj /CN=fabricmon-test-ca
key other-ca.key
openssl req -x509 -new -key other-ca.key -out other-ca.crt -days 2 -subj /CN=unrelated-ca
key server.key
openssl req -new -key server.key -out server.csr -subj /CN=localhost
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -set_serial 2 -days 2 -extfile server.ext -out server.crt 2>/dev/null
key client.key
openssl req -new -key client.key -out client.csr -subj /CN=prometheus
printf 'extendedKeyUsage=clientAuth\n' > client.ext
openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -set_serial 3 -days 2 -extfile client.ext -out client.crt 2>/dev/null
key stranger.key
openssl req -new -key stranger.key -out stranger.csr -subj /CN=stranger
openssl x509 -req -in stranger.csr -CA other-ca.crt -CAkey other-ca.key -set_serial 4 -days 2 -extfile client.ext -out stranger.crt 2>/dev/null
)";
  std::string out;
  if (fabricmon::testing::runCommand({"sh", "-c", script}, &out) != 0) return "openssl failed: " + out;
  return "";
}

struct CurlResult {
  int exitCode = -1;  ///< curl's: 0 ok, 60 certificate verify failure, 56/35 TLS alert...
  int status = 0;     ///< HTTP status, 0 when none
  std::string headers;
  std::string body;
  std::string output;  ///< curl's own messages and -w output
};

/// curl with `args` against `url`; headers and body captured through files in `dir`.
inline CurlResult curl(const TempDir& dir, const std::string& url, std::vector<std::string> args = {}) {
  std::vector<std::string> argv = {"curl", "-sS", "--max-time", "10", "-o", dir.file("curl.body"),
                                   "-D", dir.file("curl.headers"), "-w", "HTTP_CODE=%{http_code}\n"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(url);
  std::filesystem::remove(dir.file("curl.body"));
  std::filesystem::remove(dir.file("curl.headers"));
  CurlResult r;
  r.exitCode = fabricmon::testing::runCommand(argv, &r.output);
  const auto at = r.output.find("HTTP_CODE=");
  if (at != std::string::npos) r.status = std::atoi(r.output.c_str() + at + 10);
  r.headers = readFile(dir.file("curl.headers"));
  r.body = readFile(dir.file("curl.body"));
  return r;
}

}  // namespace fabricmon::test_util
