#pragma once
// The Prometheus exporter-toolkit "web-config" file (TLS and basic auth of the endpoint), in the
// format node_exporter and every other Go exporter read with --web.config.file, so one file can
// serve a whole node: https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

/// `tls_server_config.client_auth_type`: the names of Go's crypto/tls ClientAuthType.
enum class ClientAuth {
  kNoClientCert,
  kRequestClientCert,           ///< asks for a certificate, accepts none or any
  kRequireAnyClientCert,        ///< requires a certificate, does not verify it
  kVerifyClientCertIfGiven,     ///< none is fine; a given one must verify against client_ca_file
  kRequireAndVerifyClientCert,  ///< requires one that verifies against client_ca_file
};

enum class TlsVersion { kTls10, kTls11, kTls12, kTls13 };

/// `tls_server_config`; every path is absolute (relative ones were resolved against the
/// web-config file's directory, as exporter-toolkit does).
struct TlsSettings {
  std::string certFile;
  std::string keyFile;
  ClientAuth clientAuth = ClientAuth::kNoClientCert;
  std::optional<std::string> clientCaFile;
  TlsVersion minVersion = TlsVersion::kTls12;  ///< exporter-toolkit's default
  TlsVersion maxVersion = TlsVersion::kTls13;
  /// Go / IANA names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); empty = OpenSSL's defaults.
  std::vector<std::string> cipherSuites;
  bool preferServerCipherSuites = true;
  std::vector<std::string> curvePreferences;  ///< Go names: CurveP256, CurveP384, CurveP521, X25519
};

/// What a web-config file asks for.
struct WebSecurity {
  std::string file;                 ///< the web-config file, for messages
  std::optional<TlsSettings> tls;   ///< unset = plain HTTP
  std::map<std::string, std::string> basicAuthUsers;  ///< user -> bcrypt hash; empty = no auth
};

/// Reads and validates a web-config file. Every problem is reported, each as
/// `file:line:column: key: message`, joined with "; ". Checks that the certificate, key and CA
/// files exist and are readable and that every password is a bcrypt hash; whether the key matches
/// the certificate is checked when the TLS context is built (makeTlsContext). Throws nothing.
Result<WebSecurity> loadWebConfigFile(const std::string& path);

/// Same on text already read; `file` labels errors and anchors relative paths.
Result<WebSecurity> loadWebConfigText(const std::string& text, const std::string& file);

/// True for a well-formed bcrypt hash: `$2a$`, `$2b$` or `$2y$`, a cost of 04-31, then 53
/// characters of bcrypt's base64 (22 of salt, 31 of hash).
bool isBcryptHash(const std::string& hash);

}  // namespace fabricmon
