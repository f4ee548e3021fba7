#include "config/web_config.hpp"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <set>
#include <string_view>
#include <utility>

#include "config/regular_file.hpp"
#include "config/tls_names.hpp"

namespace fabricmon {
namespace {

constexpr std::pair<std::string_view, ClientAuth> kClientAuthNames[] = {
    {"NoClientCert", ClientAuth::kNoClientCert},
    {"RequestClientCert", ClientAuth::kRequestClientCert},
    {"RequireAnyClientCert", ClientAuth::kRequireAnyClientCert},
    {"VerifyClientCertIfGiven", ClientAuth::kVerifyClientCertIfGiven},
    {"RequireAndVerifyClientCert", ClientAuth::kRequireAndVerifyClientCert},
};

constexpr std::pair<std::string_view, TlsVersion> kVersionNames[] = {
    {"TLS10", TlsVersion::kTls10},
    {"TLS11", TlsVersion::kTls11},
    {"TLS12", TlsVersion::kTls12},
    {"TLS13", TlsVersion::kTls13},
};

std::string dirOf(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// One pass over the document: each read records an error at the node's position and goes on, so
// the operator sees every problem of the file at once (as with the main config).
class Reader {
 public:
  Reader(std::string file) : file_(std::move(file)), base_(dirOf(file_)) {}

  void error(const YAML::Mark& mark, const std::string& key, const std::string& message) {
    std::string e = file_;
    if (!mark.is_null()) e += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
    e += ": ";
    if (!key.empty()) e += key + ": ";
    errors_.push_back(e + message);
  }

  const std::vector<std::string>& errors() const { return errors_; }

  using Handler = std::function<void(const YAML::Node&, const std::string&)>;

  /// Known keys go to their handler; unknown and duplicate keys are errors.
  void map(const YAML::Node& node, const std::string& key,
           std::initializer_list<std::pair<std::string_view, Handler>> known) {
    if (node.IsNull()) return;
    if (!node.IsMap()) {
      error(node.Mark(), key, "expected a map");
      return;
    }
    std::set<std::string> seen;
    for (const auto& entry : node) {
      const std::string name = entry.first.IsScalar() ? entry.first.Scalar() : "";
      const std::string full = key.empty() ? name : key + "." + name;
      if (!seen.insert(name).second) {
        error(entry.first.Mark(), full, "duplicate key");
        continue;
      }
      bool found = false;
      for (const auto& [k, handler] : known) {
        if (k == name) {
          handler(entry.second, full);
          found = true;
        }
      }
      if (!found) {
        std::string list;
        for (const auto& [k, handler] : known) list += (list.empty() ? "" : ", ") + std::string(k);
        error(entry.first.Mark(), full, "unknown key (known here: " + list + ")");
      }
    }
  }

  bool string(const YAML::Node& node, const std::string& key, std::string& out) {
    if (!node.IsScalar() || node.Scalar().empty()) {
      error(node.Mark(), key, "expected a non-empty string");
      return false;
    }
    out = node.Scalar();
    return true;
  }

  void boolean(const YAML::Node& node, const std::string& key, bool& out) {
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, out)) {
      error(node.Mark(), key, "expected true or false");
    }
  }

  void stringList(const YAML::Node& node, const std::string& key, std::vector<std::string>& out,
                  const std::function<bool(const std::string&)>& valid, std::string_view what) {
    if (node.IsNull()) return;
    if (!node.IsSequence()) {
      error(node.Mark(), key, "expected a list of " + std::string(what));
      return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string itemKey = key + "[" + std::to_string(i) + "]";
      std::string value;
      if (!string(node[i], itemKey, value)) continue;
      if (!valid(value)) {
        error(node[i].Mark(), itemKey, "unknown " + std::string(what) + " \"" + value + "\"");
        continue;
      }
      out.push_back(value);
    }
  }

  /// A file the daemon must be able to read; relative paths are relative to the web-config file.
  void readableFile(const YAML::Node& node, const std::string& key, std::string& out) {
    std::string path;
    if (!string(node, key, path)) return;
    if (path.front() != '/') path = base_ + "/" + path;
    auto fd = openRegularFile(path);
    if (!fd) {
      error(node.Mark(), key, "cannot read \"" + path + "\": " + fd.error().message);
      return;
    }
    ::close(*fd);
    out = path;
  }

 private:
  std::string file_;
  std::string base_;
  std::vector<std::string> errors_;
};

template <typename T, std::size_t N>
bool lookup(const std::pair<std::string_view, T> (&table)[N], const std::string& name, T& out) {
  for (const auto& [k, v] : table) {
    if (k == name) {
      out = v;
      return true;
    }
  }
  return false;
}

template <typename T, std::size_t N>
std::string names(const std::pair<std::string_view, T> (&table)[N]) {
  std::string out;
  for (const auto& [k, v] : table) out += (out.empty() ? "" : ", ") + std::string(k);
  return out;
}

void readTls(Reader& r, const YAML::Node& node, const std::string& key, WebSecurity& out) {
  if (node.IsNull() || (node.IsMap() && node.size() == 0)) return;  // no TLS
  TlsSettings tls;
  YAML::Mark certMark = node.Mark();
  bool sawCert = false, sawKey = false, sawCa = false;
  YAML::Mark caMark;
  r.map(node, key,
        {
            {"cert_file",
             [&](const YAML::Node& v, const std::string& k) {
               sawCert = true;
               r.readableFile(v, k, tls.certFile);
             }},
            {"key_file",
             [&](const YAML::Node& v, const std::string& k) {
               sawKey = true;
               r.readableFile(v, k, tls.keyFile);
             }},
            {"client_auth_type",
             [&](const YAML::Node& v, const std::string& k) {
               std::string name;
               if (!r.string(v, k, name)) return;
               if (!lookup(kClientAuthNames, name, tls.clientAuth)) {
                 r.error(v.Mark(), k, "unknown client_auth_type \"" + name + "\" (use " +
                                          names(kClientAuthNames) + ")");
               }
             }},
            {"client_ca_file",
             [&](const YAML::Node& v, const std::string& k) {
               sawCa = true;
               caMark = v.Mark();
               std::string path;
               r.readableFile(v, k, path);
               if (!path.empty()) tls.clientCaFile = path;
             }},
            {"min_version",
             [&](const YAML::Node& v, const std::string& k) {
               std::string name;
               if (r.string(v, k, name) && !lookup(kVersionNames, name, tls.minVersion)) {
                 r.error(v.Mark(), k, "unknown TLS version \"" + name + "\" (use " +
                                          names(kVersionNames) + ")");
               }
             }},
            {"max_version",
             [&](const YAML::Node& v, const std::string& k) {
               std::string name;
               if (r.string(v, k, name) && !lookup(kVersionNames, name, tls.maxVersion)) {
                 r.error(v.Mark(), k, "unknown TLS version \"" + name + "\" (use " +
                                          names(kVersionNames) + ")");
               }
             }},
            {"cipher_suites",
             [&](const YAML::Node& v, const std::string& k) {
               r.stringList(v, k, tls.cipherSuites,
                            [](const std::string& s) { return opensslCipherName(s).has_value(); },
                            "cipher suite");
             }},
            {"prefer_server_cipher_suites",
             [&](const YAML::Node& v, const std::string& k) {
               r.boolean(v, k, tls.preferServerCipherSuites);
             }},
            {"curve_preferences",
             [&](const YAML::Node& v, const std::string& k) {
               r.stringList(v, k, tls.curvePreferences,
                            [](const std::string& s) { return opensslGroupName(s).has_value(); },
                            "curve");
             }},
        });
  if (!node.IsMap()) return;
  if (!sawCert) r.error(certMark, key + ".cert_file", "missing: TLS needs a certificate");
  if (!sawKey) r.error(certMark, key + ".key_file", "missing: TLS needs a private key");
  const bool verifies = tls.clientAuth == ClientAuth::kVerifyClientCertIfGiven ||
                        tls.clientAuth == ClientAuth::kRequireAndVerifyClientCert;
  if (verifies && !sawCa) {
    r.error(certMark, key + ".client_ca_file",
            "missing: client_auth_type verifies client certificates against this CA bundle");
  }
  if (sawCa && tls.clientAuth == ClientAuth::kNoClientCert) {
    // exporter-toolkit rejects this too: a CA without a policy would silently verify nothing.
    r.error(caMark, key + ".client_ca_file",
            "set, but client_auth_type is NoClientCert (or unset): no client certificate is checked");
  }
  if (tls.minVersion > tls.maxVersion) {
    r.error(certMark, key + ".min_version", "is above max_version");
  }
  out.tls = std::move(tls);
}

void readUsers(Reader& r, const YAML::Node& node, const std::string& key, WebSecurity& out) {
  if (node.IsNull()) return;
  if (!node.IsMap()) {
    r.error(node.Mark(), key, "expected a map of user: bcrypt hash");
    return;
  }
  for (const auto& entry : node) {
    const std::string user = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const std::string full = key + "." + user;
    // RFC 7617 §2: the user-id cannot contain a colon; an empty one could never be sent either.
    if (user.empty() || user.find(':') != std::string::npos) {
      r.error(entry.first.Mark(), full, "a user name must be non-empty and contain no ':'");
      continue;
    }
    if (out.basicAuthUsers.count(user) != 0) {
      r.error(entry.first.Mark(), full, "duplicate user");
      continue;
    }
    std::string hash;
    if (!r.string(entry.second, full, hash)) continue;
    if (!isBcryptHash(hash)) {
      r.error(entry.second.Mark(), full,
              "not a bcrypt hash (want $2b$, $2y$ or $2a$, a cost of 04-31 and 60 characters in "
              "all; make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n')");
      continue;
    }
    out.basicAuthUsers.emplace(user, hash);
  }
}

}  // namespace

bool isBcryptHash(const std::string& hash) {
  // crypt_blowfish.c / libxcrypt crypt-bcrypt.c: "$2?$NN$" + 22 salt + 31 hash characters.
  if (hash.size() != 60 || hash[0] != '$' || hash[1] != '2' || hash[3] != '$' || hash[6] != '$') {
    return false;
  }
  if (hash[2] != 'a' && hash[2] != 'b' && hash[2] != 'y') return false;
  if (hash[4] < '0' || hash[4] > '9' || hash[5] < '0' || hash[5] > '9') return false;
  const int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
  if (cost < 4 || cost > 31) return false;
  for (std::size_t i = 7; i < hash.size(); ++i) {
    const char c = hash[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '/';
    if (!ok) return false;
  }
  return true;
}

Result<WebSecurity> loadWebConfigText(const std::string& text, const std::string& file) {
  Reader r(file);
  WebSecurity out;
  out.file = file;
  try {
    const YAML::Node root = YAML::Load(text);
    if (!root.IsNull() && !root.IsMap()) {
      r.error(root.Mark(), "", "the top level must be a map (tls_server_config, basic_auth_users)");
    } else {
      r.map(root, "",
            {
                {"tls_server_config",
                 [&](const YAML::Node& v, const std::string& k) { readTls(r, v, k, out); }},
                {"basic_auth_users",
                 [&](const YAML::Node& v, const std::string& k) { readUsers(r, v, k, out); }},
            });
    }
  } catch (const YAML::Exception& e) {
    r.error(e.mark, "", "YAML syntax error: " + e.msg);
  }
  if (!r.errors().empty()) {
    std::string message;
    for (const auto& e : r.errors()) message += (message.empty() ? "" : "; ") + e;
    return Error{std::move(message), EINVAL};
  }
  return out;
}

Result<WebSecurity> loadWebConfigFile(const std::string& path) {
  auto text = readRegularFile(path, "web-config file");
  if (!text) return Error{path + ": " + text.error().message, text.error().errnum};
  return loadWebConfigText(*text, path);
}

}  // namespace fabricmon
