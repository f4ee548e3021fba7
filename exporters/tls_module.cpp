// fabricmon-tls.so: the OpenSSL and libcrypt side of exporters/tls_module.hpp, built as a module
// that the daemon loads only when web.config_file asks for TLS or basic auth.

#include "exporters/tls_module.hpp"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <utility>

#include "exporters/asio_ssl.hpp"
#include "exporters/tls_context.hpp"

namespace fabricmon {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;

class BeastTlsConnection final : public TlsConnection {
 public:
  // The context is shared with the server that made the connection, so it outlives every
  // connection even after a reload replaced the server.
  BeastTlsConnection(net::ip::tcp::socket socket, std::shared_ptr<net::ssl::context> context)
      : context_(std::move(context)), stream_(std::move(socket), *context_) {}

  beast::tcp_stream& tcp() override { return beast::get_lowest_layer(stream_); }

  void asyncHandshake(Done done) override {
    stream_.async_handshake(net::ssl::stream_base::server, std::move(done));
  }
  void asyncReadSome(net::mutable_buffer buffer, IoDone done) override {
    stream_.async_read_some(buffer, std::move(done));
  }
  void asyncWriteSome(std::vector<net::const_buffer> buffers, IoDone done) override {
    stream_.async_write_some(std::move(buffers), std::move(done));
  }
  void asyncShutdown(Done done) override { stream_.async_shutdown(std::move(done)); }

 private:
  std::shared_ptr<net::ssl::context> context_;
  beast::ssl_stream<beast::tcp_stream> stream_;
};

class OpensslTlsServer final : public TlsServer {
 public:
  explicit OpensslTlsServer(std::shared_ptr<net::ssl::context> context) : context_(std::move(context)) {}
  std::unique_ptr<TlsConnection> wrap(net::ip::tcp::socket socket) override {
    return std::make_unique<BeastTlsConnection>(std::move(socket), context_);
  }

 private:
  std::shared_ptr<net::ssl::context> context_;
};

Result<std::shared_ptr<TlsServer>> makeServer(const TlsSettings& settings, std::string_view file) {
  auto context = makeTlsContext(settings, file);
  if (!context) return context.error();
  return std::shared_ptr<TlsServer>(std::make_shared<OpensslTlsServer>(std::move(*context)));
}

std::string sha256(std::string_view input) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_Digest(input.data(), input.size(), digest.data(), &size, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest.data()), size);
}

bool bcryptMatches(const std::string& password, const std::string& hash) {
  // crypt_data is ~32 KiB: too big for a worker's stack habits, and crypt_r needs it zeroed.
  auto data = std::make_unique<crypt_data>();
  const char* out = crypt_r(password.c_str(), hash.c_str(), data.get());
  // libxcrypt returns NULL or a "*0"/"*1" failure token for a setting it cannot use.
  if (out == nullptr || out[0] == '*') return false;
  const std::string_view result(out);
  // Constant time (OpenSSL's compare): how far a guess matched must not show in the answer's time.
  return result.size() == hash.size() && CRYPTO_memcmp(result.data(), hash.data(), hash.size()) == 0;
}

constexpr TlsModule kModule{&makeServer, &sha256, &bcryptMatches};

}  // namespace
}  // namespace fabricmon

extern "C" __attribute__((visibility("default"))) const fabricmon::TlsModule* fabricmon_tls_module_v1() {
  return &fabricmon::kModule;
}
