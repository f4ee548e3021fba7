#pragma once
// TLS and basic-auth cryptography, loaded only when web.config_file asks for them. Everything
// that needs OpenSSL (Asio's TLS stream, certificate loading, SHA-256) or libcrypt (bcrypt) lives
// in fabricmon-tls.so (exporters/tls_module.cpp), which the daemon opens with dlopen on first use.
// Linking libssl and libcrypto into the daemon mapped them at start whatever the configuration:
// ~1.8 MiB of resident memory on every node, most of which serves plain HTTP (docs/benchmarks.md,
// "Sixth pass"). Both sides are built from this header by the same build, so C++ types cross the
// boundary; the module's one C entry point returns the table below.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/web_config.hpp"
#include "model/asio.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// The server side of one TLS connection over a TCP stream. Completions run on the TCP stream's
/// executor, as the Asio operations they wrap; the connection must outlive its operations.
class TlsConnection {
 public:
  using Done = std::function<void(boost::system::error_code)>;
  using IoDone = std::function<void(boost::system::error_code, std::size_t)>;

  virtual ~TlsConnection() = default;
  /// The TCP stream below: its deadline (expires_after) and close bound every operation.
  virtual boost::beast::tcp_stream& tcp() = 0;
  virtual void asyncHandshake(Done done) = 0;
  virtual void asyncReadSome(boost::asio::mutable_buffer buffer, IoDone done) = 0;
  /// Writes some of `buffers` (one TLS record of what fits: Beast's ssl_stream coalesces them).
  virtual void asyncWriteSome(std::vector<boost::asio::const_buffer> buffers, IoDone done) = 0;
  /// Sends close_notify (RFC 8446 §6.1).
  virtual void asyncShutdown(Done done) = 0;
};

/// A server certificate, key and policy (web.config_file's tls_server_config).
class TlsServer {
 public:
  virtual ~TlsServer() = default;
  virtual std::unique_ptr<TlsConnection> wrap(boost::asio::ip::tcp::socket socket) = 0;
};

/// What fabricmon-tls.so provides.
struct TlsModule {
  /// A server context: certificate chain and key loaded (and checked to match), protocol range,
  /// cipher suites, curves and client-certificate policy as configured. `webConfigFile` names the
  /// file in errors ("web.yml: tls_server_config.key_file: ... does not match the certificate").
  Result<std::shared_ptr<TlsServer>> (*makeServer)(const TlsSettings& settings,
                                                    std::string_view webConfigFile);
  /// SHA-256 of `input` (32 bytes).
  std::string (*sha256)(std::string_view input);
  /// `password` checked against a bcrypt `hash` with crypt_r(3) (libxcrypt: $2a$, $2b$, $2y$).
  bool (*bcryptMatches)(const std::string& password, const std::string& hash);
};

/// The module's file name. It is looked for at $FABRICMON_TLS_MODULE (a path, for tests), beside the
/// running executable (the build tree), then in ../lib/fabricmon/ from it (where it is installed).
inline constexpr std::string_view kTlsModuleFile = "fabricmon-tls.so";

/// fabricmon-tls.so, loaded once per process on the first call; an error naming every place it was
/// looked for when it cannot be loaded. Thread-safe.
Result<const TlsModule*> tlsModule();

/// The first of `paths` that loads as fabricmon's TLS module (tlsModule() with its own list).
Result<const TlsModule*> loadTlsModuleFrom(const std::vector<std::string>& paths);

}  // namespace fabricmon

/// The module's entry point (the symbol tlsModule() looks up).
extern "C" const fabricmon::TlsModule* fabricmon_tls_module_v1();
