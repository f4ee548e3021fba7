// loadWebConfigFile: the exporter-toolkit web-config format, every error naming file, position
// and key; makeTlsContext on real certificates made by openssl.

#include "config/web_config.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>

#include "exporters/asio_ssl.hpp"
#include "exporters/http_security.hpp"
#include "exporters/tls_context.hpp"
#include "tests/support/tls_test_support.hpp"

namespace fabricmon {
namespace {

// A check that cannot run must not pass: scripts/install-deps installs every test tool, so a
// missing one is a broken CI machine, not a reason to skip (issue 16 item 8).
constexpr const char* kMissingTool = "not installed (scripts/install-deps installs it): ";

using test_util::TempDir;

// A real bcrypt hash (cost 4, of "pw"), so the table does not pay for a cost-10 hash.
const std::string kHash = "$2b$04$MyJGHGS/0bsJo.vwGKW58uMTb2Z8mwCRBJ9O1bcBOBdHdID/5FF6S";

class WebConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    // Parsing only checks that the files are readable; their content matters to makeTlsContext.
    dir_.write("server.crt", "x");
    dir_.write("server.key", "x");
    dir_.write("ca.crt", "x");
  }
  Result<WebSecurity> load(const std::string& text) {
    return loadWebConfigFile(dir_.write("web.yml", text));
  }
  TempDir dir_;
};

TEST_F(WebConfigTest, AFullFileLoadsWithPathsRelativeToItsDirectory) {
  ASSERT_EQ(::mkdir(dir_.file("abs").c_str(), 0755), 0);
  dir_.write("abs/ca.pem", "x");
  auto s = load(
      "tls_server_config:\n"
      "  cert_file: server.crt\n"
      "  key_file: ./server.key\n"
      "  client_auth_type: RequireAndVerifyClientCert\n"
      "  client_ca_file: " + dir_.file("abs/ca.pem") + "\n"
      "  min_version: TLS13\n"
      "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]\n"
      "  curve_preferences: [X25519, CurveP256]\n"
      "  prefer_server_cipher_suites: false\n"
      "basic_auth_users:\n"
      "  alice: " + kHash + "\n"
      "  bob: '" + kHash + "'\n");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE(s->tls.has_value());
  EXPECT_EQ(s->file, dir_.file("web.yml"));
  EXPECT_EQ(s->tls->certFile, dir_.file("server.crt"));
  EXPECT_EQ(s->tls->keyFile, dir_.file("./server.key"));
  EXPECT_EQ(s->tls->clientCaFile, dir_.file("abs/ca.pem"));
  EXPECT_EQ(s->tls->clientAuth, ClientAuth::kRequireAndVerifyClientCert);
  EXPECT_EQ(s->tls->minVersion, TlsVersion::kTls13);
  EXPECT_EQ(s->tls->maxVersion, TlsVersion::kTls13);
  EXPECT_EQ(s->tls->cipherSuites.size(), 2u);
  EXPECT_EQ(s->tls->curvePreferences, (std::vector<std::string>{"X25519", "CurveP256"}));
  EXPECT_FALSE(s->tls->preferServerCipherSuites);
  EXPECT_EQ(s->basicAuthUsers, (std::map<std::string, std::string>{{"alice", kHash}, {"bob", kHash}}));
}

TEST_F(WebConfigTest, EmptyFileOrEmptyTlsSectionMeansPlainHttpWithoutAuth) {
  for (const char* text : {"", "# nothing\n", "tls_server_config:\n", "tls_server_config: {}\nbasic_auth_users:\n"}) {
    auto s = load(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.error().message;
    EXPECT_FALSE(s->tls.has_value()) << text;
    EXPECT_TRUE(s->basicAuthUsers.empty()) << text;
  }
}

TEST_F(WebConfigTest, AMissingWebConfigFileNamesIt) {
  auto s = loadWebConfigFile(dir_.file("absent.yml"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, dir_.file("absent.yml") + ": cannot open web-config file: No such file or directory (ENOENT)");
}

struct ErrorCase {
  const char* name;
  const char* yaml;
  const char* expected;  // fragment after "<file>:"
};

const ErrorCase kErrors[] = {
    {"bad_yaml", "tls_server_config: [\n", "2:1: YAML syntax error"},
    {"top_level_list", "- a\n", "1:1: the top level must be a map"},
    {"unknown_top_key", "tls_config: {}\n", "1:1: tls_config: unknown key (known here: tls_server_config, basic_auth_users)"},
    {"unknown_tls_key", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  certfile: x\n",
     "4:3: tls_server_config.certfile: unknown key"},
    {"missing_cert_file", "tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n",
     "2:14: tls_server_config.cert_file: cannot read \"DIR/missing.crt\": No such file or directory (ENOENT)"},
    {"no_cert_key", "tls_server_config:\n  key_file: server.key\n", "tls_server_config.cert_file: missing"},
    {"no_key_key", "tls_server_config:\n  cert_file: server.crt\n", "tls_server_config.key_file: missing"},
    {"empty_cert", "tls_server_config:\n  cert_file: ''\n  key_file: server.key\n",
     "2:14: tls_server_config.cert_file: expected a non-empty string"},
    {"bad_client_auth", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: Always\n",
     "4:21: tls_server_config.client_auth_type: unknown client_auth_type \"Always\" (use NoClientCert, "},
    {"verify_without_ca", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n",
     "tls_server_config.client_ca_file: missing"},
    {"ca_without_policy", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: ca.crt\n",
     "4:19: tls_server_config.client_ca_file: set, but client_auth_type is NoClientCert"},
    {"bad_version", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS1.2\n",
     "4:16: tls_server_config.min_version: unknown TLS version \"TLS1.2\" (use TLS10, TLS11, TLS12, TLS13)"},
    {"min_above_max", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS13\n  max_version: TLS12\n",
     "tls_server_config.min_version: is above max_version"},
    {"bad_cipher", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n",
     "4:19: tls_server_config.cipher_suites[0]: unknown cipher suite \"TLS_RSA_WITH_RC4_128_SHA\""},
    {"bad_curve", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  curve_preferences: [P256]\n",
     "tls_server_config.curve_preferences[0]: unknown curve \"P256\""},
    {"bad_hash", "basic_auth_users:\n  alice: secret\n", "2:10: basic_auth_users.alice: not a bcrypt hash"},
    {"md5_hash", "basic_auth_users:\n  alice: $apr1$abc$defghijklmnopqrstuvwx\n", "basic_auth_users.alice: not a bcrypt hash"},
    {"colon_user", "basic_auth_users:\n  'a:b': $2b$04$MyJGHGS/0bsJo.vwGKW58uMTb2Z8mwCRBJ9O1bcBOBdHdID/5FF6S\n",
     "2:3: basic_auth_users.a:b: a user name must be non-empty and contain no ':'"},
    {"users_list", "basic_auth_users: [alice]\n", "1:19: basic_auth_users: expected a map"},
    {"duplicate_key", "tls_server_config:\n  cert_file: server.crt\n  cert_file: server.crt\n  key_file: server.key\n",
     "3:3: tls_server_config.cert_file: duplicate key"},
};

class WebConfigErrorTest : public WebConfigTest, public ::testing::WithParamInterface<ErrorCase> {};

TEST_P(WebConfigErrorTest, NamesFilePositionAndKey) {
  const ErrorCase& c = GetParam();
  auto s = load(c.yaml);
  ASSERT_FALSE(s.ok());
  std::string expected = c.expected;
  if (auto at = expected.find("DIR"); at != std::string::npos) expected.replace(at, 3, dir_.path());
  // Fragments that start with the position must follow the file name; the others (errors about a
  // key that is absent, reported at its section) must appear in a message naming the file.
  const std::string& got = s.error().message;
  if (std::isdigit(static_cast<unsigned char>(expected[0]))) {
    EXPECT_NE(got.find(dir_.file("web.yml") + ":" + expected), std::string::npos)
        << "got: " << got << "\nwant: " << expected;
  } else {
    EXPECT_TRUE(got.starts_with(dir_.file("web.yml") + ":")) << got;
    EXPECT_NE(got.find(expected), std::string::npos) << "got: " << got << "\nwant: " << expected;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, WebConfigErrorTest, ::testing::ValuesIn(kErrors),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(WebConfigTest, EveryErrorOfAFileIsReported) {
  auto s = load("tls_server_config:\n  cert_file: a.crt\n  key_file: b.key\nbasic_auth_users:\n  alice: x\n");
  ASSERT_FALSE(s.ok());
  for (const char* key : {"tls_server_config.cert_file", "tls_server_config.key_file", "basic_auth_users.alice"}) {
    EXPECT_NE(s.error().message.find(key), std::string::npos) << key << " in " << s.error().message;
  }
}

TEST(BcryptHashFormat, AcceptsOnlyWellFormedHashes) {
  const std::string good = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DSmqNEpcaiR0jJ9o8kYLq";
  EXPECT_TRUE(isBcryptHash(good));
  EXPECT_TRUE(isBcryptHash(kHash));
  struct Case { std::string hash; bool ok; } const cases[] = {
      {"$2a$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DSmqNEpcaiR0jJ9o8kYLq", true},
      {"$2x$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DSmqNEpcaiR0jJ9o8kYLq", false},  // unknown variant
      {"$2y$03$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DSmqNEpcaiR0jJ9o8kYLq", false},  // cost below 4
      {"$2y$32$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DSmqNEpcaiR0jJ9o8kYLq", false},  // cost above 31
      {"$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DSmqNEpcaiR0jJ9o8kYL", false},   // truncated
      {"$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DSmqNEpcaiR0jJ9o8kYL!", false},  // not base64
      {"$6$salt$hash", false},
      {"", false},
  };
  for (const auto& c : cases) EXPECT_EQ(isBcryptHash(c.hash), c.ok) << c.hash;
}

class TlsContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(test_util::haveProgram("openssl")) << kMissingTool << "openssl";
    const std::string failure = test_util::makeCertificates(dir_.path());
    ASSERT_EQ(failure, "");
  }
  TempDir dir_;
};

TEST_F(TlsContextTest, BuildsFromRealCertificates) {
  auto s = loadWebConfigFile(dir_.write("web.yml",
                                        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                                        "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n"
                                        "  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]\n"
                                        "  curve_preferences: [CurveP256]\n"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  HttpServerOptions options;
  Status applied = applyWebSecurity(*s, options);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_NE(options.tls, nullptr);
  EXPECT_EQ(options.basicAuth, nullptr);
}

TEST_F(TlsContextTest, AKeyThatDoesNotMatchTheCertificateIsAnError) {
  const std::string web = dir_.write("web.yml", "tls_server_config:\n  cert_file: server.crt\n  key_file: client.key\n");
  HttpServerOptions options;
  Status s = configureWebSecurity(web, options);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(web + ": tls_server_config.key_file: \"" + dir_.file("client.key") +
                                   "\" does not match the certificate in \"" + dir_.file("server.crt")),
            std::string::npos)
      << s.error().message;
  EXPECT_EQ(options.tls, nullptr);
}

TEST_F(TlsContextTest, ACertificateFileThatIsNotPemIsAnError) {
  dir_.write("junk.crt", "not a certificate\n");
  const std::string web = dir_.write("web.yml", "tls_server_config:\n  cert_file: junk.crt\n  key_file: server.key\n");
  HttpServerOptions options;
  Status s = configureWebSecurity(web, options);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(web + ": tls_server_config.cert_file: cannot load \"" + dir_.file("junk.crt")),
            std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace fabricmon
