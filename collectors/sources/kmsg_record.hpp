#pragma once
// One record of the kernel log as /dev/kmsg hands it out (Documentation/ABI/testing/dev-kmsg):
//   PRI,SEQ,TS_USEC,FLAGS[,...];MESSAGE\n
//    SUBSYSTEM=pci\n
//    DEVICE=+pci:0000:3b:00.0\n
// PRI = facility * 8 + level; SEQ grows by one per record (a gap is records lost to the ring);
// TS_USEC is the kernel's local clock at the time of logging. The dictionary lines (continuation
// lines that start with a space) are written by dev_printk() and tie a message to its device.
// The parser is a pure function over untrusted bytes: every field is checked, nothing is trusted.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fabricmon {

struct KmsgRecord {
  unsigned facility = 0;  ///< 0 = the kernel; 1 = user (anything written to /dev/kmsg from user space)
  unsigned level = 0;     ///< 0 emerg .. 7 debug
  uint64_t sequence = 0;
  uint64_t timestampUsec = 0;  ///< kernel local clock (CLOCK_MONOTONIC-like) in microseconds
  std::string message;         ///< as the kernel escaped it (non-printable bytes as \xNN)
  std::string subsystem;       ///< SUBSYSTEM= ("pci", "net"); "" when absent
  std::string device;          ///< DEVICE= ("+pci:0000:3b:00.0", "n3" for netdev ifindex 3); "" when absent
  /// Set by the reader, not the parser: the record was in the ring when the reader opened the log
  /// (logged before the daemon started reading), not one that arrived while it read.
  bool backlog = false;

  /// The PCI address the DEVICE= line names ("0000:3b:00.0"), or "".
  std::string_view pciDevice() const;
};

/// The longest message kept: /dev/kmsg never hands out more per record (PRINTK_MESSAGE_MAX, kernel/printk/).
inline constexpr size_t kKmsgMaxMessage = 2048;
/// A read() buffer large enough for any record with its dictionary (CONSOLE_EXT_LOG_MAX is 8192).
inline constexpr size_t kKmsgReadBuffer = 16384;

/// Parses one record (the bytes of one read() of /dev/kmsg, or one record of a kmsg-formatted
/// file: header line plus its continuation lines). nullopt when the header is malformed: a PRI,
/// SEQ or TS_USEC that is not a decimal number in range, no ';', or PRI above 1023.
std::optional<KmsgRecord> parseKmsgRecord(std::string_view bytes);

/// The lengths of a PCI address in the kernel's form: dddd:bb:dd.f, and up to 8 domain digits.
inline constexpr size_t kPciAddressMinLength = 12, kPciAddressMaxLength = 16;
/// Whether `text` is a PCI address in the kernel's form: dddd:bb:dd.f (lower-case hex), the domain
/// 4 to 8 digits (5 behind a VMD controller: 10000:01:00.0).
bool isPciAddress(std::string_view text);

}  // namespace fabricmon
