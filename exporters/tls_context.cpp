#include "exporters/tls_context.hpp"

#include "config/tls_names.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <exception>
#include <string>
#include <utility>

#include "exporters/asio_ssl.hpp"

namespace fabricmon {
namespace {

namespace ssl = boost::asio::ssl;

int protocolVersion(TlsVersion v) {
  switch (v) {
    case TlsVersion::kTls10: return TLS1_VERSION;
    case TlsVersion::kTls11: return TLS1_1_VERSION;
    case TlsVersion::kTls12: return TLS1_2_VERSION;
    case TlsVersion::kTls13: return TLS1_3_VERSION;
  }
  return TLS1_2_VERSION;
}

// The reason of the last OpenSSL error ("key values mismatch"), clearing the queue.
std::string opensslReason(const boost::system::error_code& ec) {
  std::string reason = ec ? ec.message() : std::string();
  unsigned long code;
  while ((code = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    if (reason.empty()) reason = buf;
  }
  return reason.empty() ? "unknown OpenSSL error" : reason;
}

}  // namespace

Result<std::shared_ptr<ssl::context>> makeTlsContext(const TlsSettings& s,
                                                     std::string_view webConfigFile) {
  const std::string where = std::string(webConfigFile) + ": tls_server_config.";
  ERR_clear_error();
  std::shared_ptr<ssl::context> ctx;
  try {
    ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  } catch (const std::exception& e) {
    return Error{where + "cannot create an OpenSSL context: " + e.what(), 0};
  }
  SSL_CTX* native = ctx->native_handle();
  boost::system::error_code ec;
  // Client-initiated renegotiation costs the server a handshake per request (CVE-2011-1473).
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                                  SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3);
  if (s.preferServerCipherSuites) SSL_CTX_set_options(native, SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_min_proto_version(native, protocolVersion(s.minVersion));
  SSL_CTX_set_max_proto_version(native, protocolVersion(s.maxVersion));

  ctx->use_certificate_chain_file(s.certFile, ec);
  if (ec) return Error{where + "cert_file: cannot load \"" + s.certFile + "\": " + opensslReason(ec), 0};
  ctx->use_private_key_file(s.keyFile, ssl::context::pem, ec);
  // OpenSSL 3 checks the key against the certificate while loading it ("key values mismatch").
  if (ec || SSL_CTX_check_private_key(native) != 1) {
    const std::string reason = opensslReason(ec);
    if (reason.find("mismatch") == std::string::npos) {
      return Error{where + "key_file: cannot load \"" + s.keyFile + "\": " + reason, 0};
    }
    return Error{where + "key_file: \"" + s.keyFile + "\" does not match the certificate in \"" +
                     s.certFile + "\" (" + reason + ")",
                 0};
  }

  std::string tls12, tls13;
  for (const std::string& name : s.cipherSuites) {
    const auto openssl = opensslCipherName(name);
    if (!openssl) return Error{where + "cipher_suites: unknown cipher suite \"" + name + "\"", 0};
    std::string& list = openssl->starts_with("TLS_") ? tls13 : tls12;
    list += (list.empty() ? "" : ":") + std::string(*openssl);
  }
  // Go applies cipher_suites to TLS 1.0-1.2 only; TLS 1.3 suites are configured apart in OpenSSL.
  if (!tls12.empty() && SSL_CTX_set_cipher_list(native, tls12.c_str()) != 1) {
    return Error{where + "cipher_suites: " + opensslReason({}), 0};
  }
  if (!tls13.empty() && SSL_CTX_set_ciphersuites(native, tls13.c_str()) != 1) {
    return Error{where + "cipher_suites: " + opensslReason({}), 0};
  }
  if (!s.curvePreferences.empty()) {
    std::string groups;
    for (const std::string& name : s.curvePreferences) {
      const auto openssl = opensslGroupName(name);
      if (!openssl) return Error{where + "curve_preferences: unknown curve \"" + name + "\"", 0};
      groups += (groups.empty() ? "" : ":") + std::string(*openssl);
    }
    if (SSL_CTX_set1_groups_list(native, groups.c_str()) != 1) {
      return Error{where + "curve_preferences: " + opensslReason({}), 0};
    }
  }

  if (s.clientCaFile) {
    ctx->load_verify_file(*s.clientCaFile, ec);
    if (ec) {
      return Error{where + "client_ca_file: cannot load \"" + *s.clientCaFile + "\": " + opensslReason(ec), 0};
    }
    // The CA names the server sends in its CertificateRequest, so a client picks the right cert.
    if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(s.clientCaFile->c_str())) {
      SSL_CTX_set_client_CA_list(native, names);
    }
  }
  // Session resumption with client certificates needs a session id context (SSL_CTX_set_verify(3)).
  static constexpr unsigned char kSessionContext[] = "fabricmon";
  SSL_CTX_set_session_id_context(native, kSessionContext, sizeof kSessionContext - 1);

  const auto acceptAny = [](bool, ssl::verify_context&) { return true; };
  switch (s.clientAuth) {
    case ClientAuth::kNoClientCert:
      ctx->set_verify_mode(ssl::verify_none, ec);
      break;
    case ClientAuth::kRequestClientCert:
      ctx->set_verify_mode(ssl::verify_peer, ec);
      ctx->set_verify_callback(acceptAny, ec);
      break;
    case ClientAuth::kRequireAnyClientCert:
      ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
      ctx->set_verify_callback(acceptAny, ec);
      break;
    case ClientAuth::kVerifyClientCertIfGiven:
      ctx->set_verify_mode(ssl::verify_peer, ec);
      break;
    case ClientAuth::kRequireAndVerifyClientCert:
      ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
      break;
  }
  if (ec) return Error{where + "client_auth_type: " + opensslReason(ec), 0};
  return ctx;
}

}  // namespace fabricmon
