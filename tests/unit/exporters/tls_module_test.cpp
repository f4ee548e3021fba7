// The TLS module (exporters/tls_module.hpp): found by path, refused when it is not ours, and what it
// computes checked against published values.

#include "exporters/tls_module.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace fabricmon {
namespace {

std::string hex(const std::string& bytes) {
  std::string out;
  char two[3];
  for (unsigned char c : bytes) {
    std::snprintf(two, sizeof two, "%02x", c);
    out += two;
  }
  return out;
}

TEST(TlsModule, LoadsFromTheFirstPathThatIsTheModule) {
  auto module = loadTlsModuleFrom({"/nonexistent/fabricmon-tls.so", FABRICMON_TLS_MODULE_PATH});
  ASSERT_TRUE(module) << module.error().message;
  // FIPS 180-4 test vectors (NIST CSRC "SHA256.pdf" examples).
  EXPECT_EQ(hex((*module)->sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex((*module)->sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // The daemon's own loader finds the same module (the test points $FABRICMON_TLS_MODULE at it).
  auto daemons = tlsModule();
  ASSERT_TRUE(daemons) << daemons.error().message;
  EXPECT_EQ(*daemons, *module);
}

TEST(TlsModule, AMissingModuleIsAnErrorNamingEveryPlaceTried) {
  auto module = loadTlsModuleFrom({"/nonexistent/a/fabricmon-tls.so", "/nonexistent/b/fabricmon-tls.so"});
  ASSERT_FALSE(module);
  EXPECT_NE(module.error().message.find("/nonexistent/a/fabricmon-tls.so"), std::string::npos) << module.error().message;
  EXPECT_NE(module.error().message.find("/nonexistent/b/fabricmon-tls.so"), std::string::npos) << module.error().message;
  EXPECT_NE(module.error().message.find("TLS and basic auth need fabricmon-tls.so"), std::string::npos);
}

TEST(TlsModule, ASharedObjectThatIsNotTheModuleIsRefused) {
  // Any shared object without the entry point: the C library is always there.
  auto module = loadTlsModuleFrom({"libc.so.6"});
  ASSERT_FALSE(module);
  EXPECT_NE(module.error().message.find("has no fabricmon_tls_module_v1"), std::string::npos) << module.error().message;
}

TEST(TlsModule, AFileThatIsNotASharedObjectIsSkippedForTheNext) {
  const std::string junk = ::testing::TempDir() + "/not-a-module.so";
  std::ofstream(junk) << "not an ELF file\n";
  auto module = loadTlsModuleFrom({junk, FABRICMON_TLS_MODULE_PATH});
  std::remove(junk.c_str());
  ASSERT_TRUE(module) << module.error().message;
}

}  // namespace
}  // namespace fabricmon
