#include "collectors/transceiver_decode.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace fabricmon::transceiver {

namespace {

constexpr uint8_t kA0 = 0x50;
constexpr uint8_t kA2 = 0x51;

// Unit conversions common to the three specs (SFF-8472 §9.2, SFF-8636 §6.2.4, CMIS §8.2.5):
// temperature s16 in 1/256 °C, supply voltage u16 in 100 µV, bias u16 in 2 µA, optical power
// u16 in 0.1 µW.
constexpr double kVoltsPerLsb = 100e-6;
constexpr double kAmperesPerLsb = 2e-6;
constexpr double kWattsPerLsb = 0.1e-6;

// What a reading may be, from the width of its field (an externally calibrated SFF-8472 value is
// computed, and may leave it): beyond it the value is rejected, never exported.
struct Domain {
  double lo, hi;
};
constexpr std::array<Domain, kQuantities> kDomains{{
    {-128.0, 128.0},                    // temperature, °C: s16 / 256
    {0.0, 65535 * kVoltsPerLsb},        // supply voltage, V
    {0.0, 4 * 65535 * kAmperesPerLsb},  // Tx bias, A (CMIS scales by up to 4)
    {0.0, 65535 * kWattsPerLsb},        // Tx power, W
    {0.0, 65535 * kWattsPerLsb},        // Rx power, W
}};

uint16_t be16(const HalfPage& p, size_t at) {
  return static_cast<uint16_t>(p[at] << 8 | p[at + 1]);
}
int16_t bes16(const HalfPage& p, size_t at) { return static_cast<int16_t>(be16(p, at)); }

// LSBs per base unit. Dividing by these (rather than multiplying by 1e-7) gives the double
// nearest to the decimal value: 8500 LSB is exactly the 0.00085 W a reader expects to see.
double perUnit(Quantity q) {
  switch (q) {
    case Quantity::kTemperature:
      return 256.0;
    case Quantity::kSupplyVoltage:
      return 1e4;
    case Quantity::kTxBias:
      return 5e5;
    case Quantity::kTxPower:
    case Quantity::kRxPower:
      return 1e7;
  }
  return 1;
}
double toBase(double raw, Quantity q) { return raw / perUnit(q); }

// A raw field in its spec's units (s16 for temperature, u16 otherwise).
double rawAt(const HalfPage& p, size_t at, Quantity q) {
  return q == Quantity::kTemperature ? bes16(p, at) : be16(p, at);
}

std::optional<double> checked(double value, Quantity q, std::string_view where,
                              std::vector<std::string>& issues) {
  const Domain d = kDomains[static_cast<size_t>(q)];
  if (!std::isfinite(value) || value < d.lo || value > d.hi) {
    issues.push_back(
        fmt::format("{} {}: {} outside [{}, {}]", where, quantityName(q), value, d.lo, d.hi));
    return std::nullopt;
  }
  return value;
}

std::string ascii(const HalfPage& p, size_t at, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t c = p[at + i];
    // Label values stay printable ASCII without quote or backslash (model/sample.hpp, plainKey).
    s.push_back(c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? static_cast<char>(c) : '?');
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '?')) {
    // Trailing NULs (shown as '?') and spaces are padding (SFF-8472 §4.4: "padded with ASCII
    // spaces").
    if (s.back() == '?' && p[at + s.size() - 1] != 0) break;
    s.pop_back();
  }
  return s;
}

bool checksum(const HalfPage& p, size_t from, size_t to, size_t at) {
  unsigned sum = 0;
  for (size_t i = from; i <= to; ++i) sum += p[i];
  return (sum & 0xff) == p[at];
}

// SFF-8024 rev 4.11 Table 4-1 (identifier values).
std::string typeName(uint8_t id) {
  switch (id) {
    case 0x03:
      return "SFP";
    case 0x0c:
      return "QSFP";
    case 0x0d:
      return "QSFP+";
    case 0x11:
      return "QSFP28";
    case 0x18:
      return "QSFP-DD";
    case 0x19:
      return "OSFP";
    case 0x1b:
      return "DSFP";
    case 0x1e:
      return "QSFP+ CMIS";  // QSFP+ or later with CMIS: QSFP112, QSFP56 CMIS modules
    case 0x1f:
      return "SFP-DD CMIS";
    case 0x20:
      return "SFP+ CMIS";
  }
  return fmt::format("0x{:02x}", id);
}

// SFF-8024 Table 4-3 (connector types).
std::string connectorName(uint8_t c) {
  switch (c) {
    case 0x00:
      return "unknown";
    case 0x01:
      return "SC";
    case 0x07:
      return "LC";
    case 0x08:
      return "MT-RJ";
    case 0x09:
      return "MU";
    case 0x0b:
      return "Optical pigtail";
    case 0x0c:
      return "MPO 1x12";
    case 0x0d:
      return "MPO 2x16";
    case 0x21:
      return "Copper pigtail";
    case 0x22:
      return "RJ45";
    case 0x23:
      return "No separable connector";
    case 0x24:
      return "MXC 2x16";
    case 0x25:
      return "CS";
    case 0x26:
      return "SN";
    case 0x27:
      return "MPO 2x12";
    case 0x28:
      return "MPO 1x16";
  }
  return fmt::format("0x{:02x}", c);
}

// Thresholds laid out as four u16/s16 in the order high alarm, low alarm, high warning, low
// warning (the order of all three specs). All four zero: the module does not support them.
std::optional<Thresholds> thresholdsAt(const HalfPage& p, size_t at, Quantity q,
                                       double factor = 1.0) {
  bool any = false;
  for (size_t i = 0; i < 8; ++i) any = any || p[at + i] != 0;
  if (!any) return std::nullopt;
  Thresholds t{};
  t[static_cast<size_t>(Level::kHighAlarm)] = toBase(rawAt(p, at, q), q) * factor;
  t[static_cast<size_t>(Level::kLowAlarm)] = toBase(rawAt(p, at + 2, q), q) * factor;
  t[static_cast<size_t>(Level::kHighWarning)] = toBase(rawAt(p, at + 4, q), q) * factor;
  t[static_cast<size_t>(Level::kLowWarning)] = toBase(rawAt(p, at + 6, q), q) * factor;
  return t;
}

bool monitored(const Identity& id, Quantity q) { return id.monitored[static_cast<size_t>(q)]; }

void addFlag(Diagnostics& d, const Identity& id, Quantity q, Level l, unsigned lane, bool set) {
  if (monitored(id, q)) d.flags.push_back(Flag{q, l, lane, set});
}

// ---- SFF-8472 -------------------------------------------------------------------------------

float beFloat(const HalfPage& p, size_t at) {
  uint32_t bits = static_cast<uint32_t>(p[at]) << 24 | static_cast<uint32_t>(p[at + 1]) << 16 |
                  static_cast<uint32_t>(p[at + 2]) << 8 | p[at + 3];
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// SFF-8472 §9.3: an externally calibrated module gives raw A/D values and the constants at A2h
// 56..91: "formula 1" (slope u16 in 1/256, offset s16, for temperature, Vcc, bias and Tx power)
// and a 4th-order polynomial of single-precision floats for Rx power.
struct Sff8472Calibration {
  const HalfPage* a2 = nullptr;  // null = internally calibrated

  double apply(double raw, Quantity q) const {
    if (a2 == nullptr) return raw;
    const HalfPage& p = *a2;
    if (q == Quantity::kRxPower) {
      double r = 0, x = 1;
      for (int i = 0; i <= 4; ++i) {  // Rx_PWR(i) at 72 - 4i
        r += beFloat(p, 72 - 4 * i) * x;
        x *= raw;
      }
      return r;
    }
    size_t at = 0;
    switch (q) {
      case Quantity::kTxBias:
        at = 76;
        break;
      case Quantity::kTxPower:
        at = 80;
        break;
      case Quantity::kTemperature:
        at = 84;
        break;
      case Quantity::kSupplyVoltage:
        at = 88;
        break;
      case Quantity::kRxPower:
        break;
    }
    return be16(p, at) / 256.0 * raw + bes16(p, at + 2);
  }
};

Identity sff8472Identity(const HalfPage& a0) {
  Identity id;
  id.spec = Spec::kSff8472;
  id.vendor = ascii(a0, 20, 16);
  id.partNumber = ascii(a0, 40, 16);
  id.revision = ascii(a0, 56, 4);
  id.serialNumber = ascii(a0, 68, 16);
  id.connector = connectorName(a0[2]);
  id.checksumOk = checksum(a0, 0, 62, 63) && checksum(a0, 64, 94, 95);
  // A0h byte 8, SFP+ cable technology: bit 2 passive cable, bit 3 active cable (SFF-8472 Table
  // 5-3).
  if (a0[8] & 0x04) {
    id.media = "passive_copper";
  } else if (a0[8] & 0x08) {
    id.media = "active_copper";
  } else if (a0[2] == 0x22) {
    id.media = "base_t";
  } else {
    id.media = "optical";
  }
  if ((a0[8] & 0x0c) && a0[18] != 0) id.cableLengthMeters = a0[18];  // byte 18: copper length, m
  // Byte 92 (diagnostic monitoring type): bit 6 digital diagnostics implemented, bit 4 externally
  // calibrated. Implemented means all five (SFF-8472 §8.8).
  const bool ddm = (a0[92] & 0x40) != 0;
  id.externalCalibration = ddm && (a0[92] & 0x10) != 0;
  id.monitored.fill(ddm);
  id.lanes = 1;
  return id;
}

void sff8472Diagnostics(const ModuleMemory& m, const Identity& id, Diagnostics& d) {
  const HalfPage* a0 = m.find(lowerPage(kA0));
  const HalfPage* a2 = m.find(lowerPage(kA2));
  if (a2 == nullptr) {
    d.issues.emplace_back("A2h (diagnostics) not read");
    return;
  }
  const Sff8472Calibration cal{id.externalCalibration ? a2 : nullptr};
  auto value = [&](size_t at, Quantity q) {
    return checked(toBase(cal.apply(rawAt(*a2, at, q), q), q), q, "A2h", d.issues);
  };
  d.temperatureCelsius = value(96, Quantity::kTemperature);
  d.supplyVoltageVolts = value(98, Quantity::kSupplyVoltage);
  d.txBiasAmperes = {value(100, Quantity::kTxBias)};
  d.txPowerWatts = {value(102, Quantity::kTxPower)};
  d.rxPowerWatts = {value(104, Quantity::kRxPower)};
  // Byte 93 bit 7: alarm/warning flags implemented (and with them the thresholds, A2h 0..39).
  if (a0 == nullptr || ((*a0)[93] & 0x80) == 0) return;
  constexpr std::array<Quantity, kQuantities> kOrder{Quantity::kTemperature,
                                                     Quantity::kSupplyVoltage, Quantity::kTxBias,
                                                     Quantity::kTxPower, Quantity::kRxPower};
  for (size_t i = 0; i < kQuantities; ++i) {
    const Quantity q = kOrder[i];
    auto t = thresholdsAt(*a2, 8 * i, q);
    if (t && id.externalCalibration) {
      for (size_t l = 0; l < kLevels; ++l) {
        const size_t at = 8 * i + (l == 0 ? 0 : l == 1 ? 4 : l == 2 ? 6 : 2);  // by Level
        (*t)[l] = toBase(cal.apply(rawAt(*a2, at, q), q), q);
      }
    }
    d.thresholds[static_cast<size_t>(q)] = t;
  }
  // Flags: 112/116 bits 7..0 = temperature high/low, Vcc high/low, bias high/low, Tx power
  // high/low; 113/117 bits 7..6 = Rx power high/low. Alarms at 112/113, warnings at 116/117.
  for (const bool warning : {false, true}) {
    const uint8_t b0 = (*a2)[warning ? 116 : 112];
    const uint8_t b1 = (*a2)[warning ? 117 : 113];
    const Level high = warning ? Level::kHighWarning : Level::kHighAlarm;
    const Level low = warning ? Level::kLowWarning : Level::kLowAlarm;
    const std::array<Quantity, 4> q4{Quantity::kTemperature, Quantity::kSupplyVoltage,
                                     Quantity::kTxBias, Quantity::kTxPower};
    for (size_t i = 0; i < 4; ++i) {
      const unsigned lane = i >= 2 ? 1 : 0;
      addFlag(d, id, q4[i], high, lane, (b0 >> (7 - 2 * i)) & 1);
      addFlag(d, id, q4[i], low, lane, (b0 >> (6 - 2 * i)) & 1);
    }
    addFlag(d, id, Quantity::kRxPower, high, 1, (b1 >> 7) & 1);
    addFlag(d, id, Quantity::kRxPower, low, 1, (b1 >> 6) & 1);
  }
}

// ---- SFF-8636 -------------------------------------------------------------------------------

Identity sff8636Identity(const HalfPage& lower, const HalfPage* p0,
                         std::vector<std::string>& /*unused*/) {
  Identity id;
  id.spec = Spec::kSff8636;
  id.lanes = 4;
  // Byte 2 bit 2: Flat_mem (1 = only the lower page and page 00h).
  id.paged = (lower[2] & 0x04) == 0;
  if (p0 == nullptr) return id;
  const HalfPage& p = *p0;  // indices are offset - 128
  id.connector = connectorName(p[130 - 128]);
  id.vendor = ascii(p, 148 - 128, 16);
  id.partNumber = ascii(p, 168 - 128, 16);
  id.revision = ascii(p, 184 - 128, 2);
  id.serialNumber = ascii(p, 196 - 128, 16);
  id.checksumOk = checksum(p, 0, 62, 63) && checksum(p, 64, 94, 95);
  // Byte 147 bits 7-4, transmitter technology (SFF-8636 Table 6-19): 0xA copper unequalized,
  // 0xB copper passive equalized, 0xC..0xF copper with active equalization.
  const unsigned tech = p[147 - 128] >> 4;
  const bool copper = tech >= 0xa;
  const bool passive = tech == 0xa || tech == 0xb;
  id.media = passive ? "passive_copper" : copper ? "active_copper" : "optical";
  if (copper && p[146 - 128] != 0) id.cableLengthMeters = p[146 - 128];  // byte 146: copper, m
  // Byte 220 (diagnostic monitoring type): bit 5 temperature, bit 4 supply voltage monitoring
  // implemented (rev 2.10), bit 2 Tx power measurement supported. An optical module monitors
  // temperature, Vcc, bias and Rx power (modules before rev 2.10 leave bits 5-4 zero).
  const uint8_t diag = p[220 - 128];
  if (!passive) {
    const bool optical = !copper;
    id.monitored[static_cast<size_t>(Quantity::kTemperature)] = optical || (diag & 0x20);
    id.monitored[static_cast<size_t>(Quantity::kSupplyVoltage)] = optical || (diag & 0x10);
    id.monitored[static_cast<size_t>(Quantity::kTxBias)] = optical;
    id.monitored[static_cast<size_t>(Quantity::kTxPower)] = optical && (diag & 0x04);
    id.monitored[static_cast<size_t>(Quantity::kRxPower)] = optical;
  }
  return id;
}

void sff8636Diagnostics(const ModuleMemory& m, const Identity& id, Diagnostics& d) {
  const HalfPage& lo = *m.find(lowerPage());
  auto value = [&](size_t at, Quantity q) -> std::optional<double> {
    if (!monitored(id, q)) return std::nullopt;
    return checked(toBase(rawAt(lo, at, q), q), q, "lower page", d.issues);
  };
  d.temperatureCelsius = value(22, Quantity::kTemperature);
  d.supplyVoltageVolts = value(26, Quantity::kSupplyVoltage);
  for (size_t lane = 0; lane < 4; ++lane) {
    d.rxPowerWatts.push_back(value(34 + 2 * lane, Quantity::kRxPower));
    d.txBiasAmperes.push_back(value(42 + 2 * lane, Quantity::kTxBias));
    d.txPowerWatts.push_back(value(50 + 2 * lane, Quantity::kTxPower));
  }
  // Flags (SFF-8636 Table 6-8..6-10): byte 6 temperature, 7 Vcc (bits 7..4 = high alarm, low
  // alarm, high warning, low warning); 9-10 Rx power, 11-12 Tx bias, 13-14 Tx power, two lanes per
  // byte (bits 7..4 the odd lane, 3..0 the even one, same order).
  auto levels = [&](uint8_t nibble, Quantity q, unsigned lane) {
    addFlag(d, id, q, Level::kHighAlarm, lane, (nibble >> 3) & 1);
    addFlag(d, id, q, Level::kLowAlarm, lane, (nibble >> 2) & 1);
    addFlag(d, id, q, Level::kHighWarning, lane, (nibble >> 1) & 1);
    addFlag(d, id, q, Level::kLowWarning, lane, nibble & 1);
  };
  levels(lo[6] >> 4, Quantity::kTemperature, 0);
  levels(lo[7] >> 4, Quantity::kSupplyVoltage, 0);
  for (const auto& [at, q] : {std::pair{9, Quantity::kRxPower}, std::pair{11, Quantity::kTxBias},
                              std::pair{13, Quantity::kTxPower}}) {
    for (unsigned lane = 1; lane <= 4; ++lane) {
      const uint8_t b = lo[at + (lane - 1) / 2];
      levels(lane % 2 == 1 ? b >> 4 : b & 0x0f, q, lane);
    }
  }
  // Thresholds, page 03h (SFF-8636 Table 6-24): temperature 128, Vcc 144, Rx power 176, bias 184,
  // Tx power 192.
  if (!id.paged) return;
  const HalfPage* p3 = m.find(upperPage(3));
  if (p3 == nullptr) {
    d.issues.emplace_back("page 03h (thresholds) not read");
    return;
  }
  for (const auto& [at, q] :
       {std::pair{128, Quantity::kTemperature}, std::pair{144, Quantity::kSupplyVoltage},
        std::pair{176, Quantity::kRxPower}, std::pair{184, Quantity::kTxBias},
        std::pair{192, Quantity::kTxPower}}) {
    if (monitored(id, q)) d.thresholds[static_cast<size_t>(q)] = thresholdsAt(*p3, at - 128, q);
  }
}

// ---- CMIS -----------------------------------------------------------------------------------

Identity cmisIdentity(const HalfPage& lower, const HalfPage* p0, const HalfPage* p1) {
  Identity id;
  id.spec = Spec::kCmis;
  // Byte 2 bit 7: MemoryModel (1 = flat: lower page and page 00h only). A paged module has pages
  // 01h, 02h, 10h and 11h (CMIS 5.2 §8.1.1).
  id.paged = (lower[2] & 0x80) == 0;
  // Media lane count of the first application (byte 88, bits 3-0; CMIS Table 8-23).
  const unsigned lanes = lower[88] & 0x0f;
  id.lanes = lanes >= 1 && lanes <= 8 ? lanes : 8;
  // Byte 85, MediaType (SFF-8024 Table 4-5 groups): 01h MMF, 02h SMF, 03h passive copper,
  // 04h active cables, 05h BASE-T.
  switch (lower[85]) {
    case 0x01:
    case 0x02:
      id.media = "optical";
      break;
    case 0x03:
      id.media = "passive_copper";
      break;
    case 0x04:
      id.media = "active_copper";
      break;
    case 0x05:
      id.media = "base_t";
      break;
    default:
      id.media = "unknown";
      break;
  }
  if (p0 != nullptr) {
    const HalfPage& p = *p0;
    id.vendor = ascii(p, 129 - 128, 16);
    id.partNumber = ascii(p, 148 - 128, 16);
    id.revision = ascii(p, 164 - 128, 2);
    id.serialNumber = ascii(p, 166 - 128, 16);
    id.connector = connectorName(p[203 - 128]);
    id.checksumOk = checksum(p, 0, 221 - 128, 222 - 128);
    // Byte 202: cable assembly length, bits 7-6 multiplier (0.1, 1, 10, 100 m), bits 5-0 base.
    const uint8_t len = p[202 - 128];
    static constexpr std::array<double, 4> kMultiplier{0.1, 1, 10, 100};
    if ((len & 0x3f) != 0) id.cableLengthMeters = (len & 0x3f) * kMultiplier[len >> 6];
  }
  if (id.media == "passive_copper") return id;
  if (p1 != nullptr && id.paged) {
    // Page 01h byte 159 (Implemented Monitors): bit 0 temperature, bit 1 supply voltage; byte
    // 160: bit 0 Tx bias, bit 1 Tx power, bit 2 Rx power monitor implemented (CMIS Table 8-36).
    const HalfPage& p = *p1;
    id.monitored[static_cast<size_t>(Quantity::kTemperature)] = p[159 - 128] & 0x01;
    id.monitored[static_cast<size_t>(Quantity::kSupplyVoltage)] = p[159 - 128] & 0x02;
    id.monitored[static_cast<size_t>(Quantity::kTxBias)] = p[160 - 128] & 0x01;
    id.monitored[static_cast<size_t>(Quantity::kTxPower)] = p[160 - 128] & 0x02;
    id.monitored[static_cast<size_t>(Quantity::kRxPower)] = p[160 - 128] & 0x04;
  } else {
    // A flat-memory module advertises nothing beyond page 00h, and a paged one read without page
    // 01h (the ioctl hands out lower page + page 00h only) advertised nothing we saw: the
    // lower-page module monitors are taken as implemented (an optical module always has them), the
    // lanes have no page we read.
    id.monitored[static_cast<size_t>(Quantity::kTemperature)] = true;
    id.monitored[static_cast<size_t>(Quantity::kSupplyVoltage)] = true;
  }
  return id;
}

void cmisDiagnostics(const ModuleMemory& m, const Identity& id, Diagnostics& d) {
  const HalfPage& lo = *m.find(lowerPage());
  if (monitored(id, Quantity::kTemperature)) {
    d.temperatureCelsius =
        checked(toBase(rawAt(lo, 14, Quantity::kTemperature), Quantity::kTemperature),
                Quantity::kTemperature, "lower page", d.issues);
  }
  if (monitored(id, Quantity::kSupplyVoltage)) {
    d.supplyVoltageVolts =
        checked(toBase(rawAt(lo, 16, Quantity::kSupplyVoltage), Quantity::kSupplyVoltage),
                Quantity::kSupplyVoltage, "lower page", d.issues);
  }
  // Byte 9: bit 0 temperature high alarm, 1 low alarm, 2 high warning, 3 low warning; bits 4..7
  // the same for Vcc (CMIS Table 8-9).
  for (const auto& [shift, q] :
       {std::pair{0, Quantity::kTemperature}, std::pair{4, Quantity::kSupplyVoltage}}) {
    const uint8_t b = lo[9] >> shift;
    addFlag(d, id, q, Level::kHighAlarm, 0, b & 1);
    addFlag(d, id, q, Level::kLowAlarm, 0, (b >> 1) & 1);
    addFlag(d, id, q, Level::kHighWarning, 0, (b >> 2) & 1);
    addFlag(d, id, q, Level::kLowWarning, 0, (b >> 3) & 1);
  }
  if (!id.paged) return;
  // Tx bias multiplier: page 01h byte 160 bits 4-3 (0: x1, 1: x2, 2: x4), applied as a multiplier
  // to the values and the thresholds alike. ethtool's cmis.c divides instead (docs/metrics.md).
  double biasFactor = 1;
  if (const HalfPage* p1 = m.find(upperPage(1)); p1 != nullptr) {
    const unsigned s = ((*p1)[160 - 128] >> 3) & 0x03;
    biasFactor = s == 1 ? 2 : s == 2 ? 4 : 1;
  }
  // Thresholds, page 02h (CMIS Table 8-62): temperature 128, Vcc 136, Tx power 176, Tx bias 184,
  // Rx power 192.
  if (const HalfPage* p2 = m.find(upperPage(2)); p2 != nullptr) {
    for (const auto& [at, q] :
         {std::pair{128, Quantity::kTemperature}, std::pair{136, Quantity::kSupplyVoltage},
          std::pair{176, Quantity::kTxPower}, std::pair{184, Quantity::kTxBias},
          std::pair{192, Quantity::kRxPower}}) {
      if (monitored(id, q)) {
        d.thresholds[static_cast<size_t>(q)] =
            thresholdsAt(*p2, at - 128, q, q == Quantity::kTxBias ? biasFactor : 1.0);
      }
    }
  } else {
    d.issues.emplace_back("page 02h (thresholds) not read");
  }
  // Lane monitors and flags, page 11h bank 0 (CMIS Table 8-77..8-81): one bit per lane (bit 0 =
  // lane 1) in 139..142 Tx power, 143..146 Tx bias, 149..152 Rx power (high alarm, low alarm, high
  // warning, low warning); values at 154 Tx power, 170 Tx bias, 186 Rx power, u16 per lane.
  const HalfPage* p11 = m.find(upperPage(0x11));
  if (p11 == nullptr) {
    if (monitored(id, Quantity::kTxBias) || monitored(id, Quantity::kTxPower) ||
        monitored(id, Quantity::kRxPower)) {
      d.issues.emplace_back("page 11h (lane monitors) not read");
    }
    return;
  }
  const HalfPage& p = *p11;
  for (unsigned lane = 1; lane <= id.lanes; ++lane) {
    const size_t i = lane - 1;
    auto lv = [&](size_t at, Quantity q, double factor) -> std::optional<double> {
      if (!monitored(id, q)) return std::nullopt;
      return checked(toBase(be16(p, at - 128 + 2 * i), q) * factor, q, "page 11h", d.issues);
    };
    d.txPowerWatts.push_back(lv(154, Quantity::kTxPower, 1));
    d.txBiasAmperes.push_back(lv(170, Quantity::kTxBias, biasFactor));
    d.rxPowerWatts.push_back(lv(186, Quantity::kRxPower, 1));
    for (const auto& [at, q] :
         {std::pair{139, Quantity::kTxPower}, std::pair{143, Quantity::kTxBias},
          std::pair{149, Quantity::kRxPower}}) {
      addFlag(d, id, q, Level::kHighAlarm, lane, (p[at - 128] >> i) & 1);
      addFlag(d, id, q, Level::kLowAlarm, lane, (p[at + 1 - 128] >> i) & 1);
      addFlag(d, id, q, Level::kHighWarning, lane, (p[at + 2 - 128] >> i) & 1);
      addFlag(d, id, q, Level::kLowWarning, lane, (p[at + 3 - 128] >> i) & 1);
    }
  }
}

}  // namespace

std::string_view specName(Spec spec) {
  switch (spec) {
    case Spec::kSff8472:
      return "sff8472";
    case Spec::kSff8636:
      return "sff8636";
    case Spec::kCmis:
      return "cmis";
  }
  return "";
}

std::string_view quantityName(Quantity q) {
  switch (q) {
    case Quantity::kTemperature:
      return "temperature";
    case Quantity::kSupplyVoltage:
      return "supply_voltage";
    case Quantity::kTxBias:
      return "tx_bias";
    case Quantity::kTxPower:
      return "tx_power";
    case Quantity::kRxPower:
      return "rx_power";
  }
  return "";
}

std::string_view levelName(Level l) {
  switch (l) {
    case Level::kHighAlarm:
      return "high_alarm";
    case Level::kHighWarning:
      return "high_warning";
    case Level::kLowWarning:
      return "low_warning";
    case Level::kLowAlarm:
      return "low_alarm";
  }
  return "";
}

PageKey lowerPage(uint8_t i2cAddress) { return PageKey{i2cAddress, 0, 0, false}; }
PageKey upperPage(uint8_t page, uint8_t bank, uint8_t i2cAddress) {
  return PageKey{i2cAddress, page, bank, true};
}
EepromRead requestFor(const PageKey& key) {
  return EepromRead{key.i2cAddress, key.upper ? key.page : uint8_t{0}, key.bank,
                    static_cast<uint16_t>(key.upper ? 128 : 0), 128};
}

const HalfPage* ModuleMemory::find(const PageKey& key) const {
  const auto it = pages_.find(key);
  return it == pages_.end() ? nullptr : &it->second;
}

std::optional<uint8_t> ModuleMemory::byte(uint16_t offset, uint8_t page, uint8_t i2cAddress) const {
  if (offset > 255) return std::nullopt;
  const HalfPage* p = find(offset < 128 ? lowerPage(i2cAddress) : upperPage(page, 0, i2cAddress));
  if (p == nullptr) return std::nullopt;
  return (*p)[offset % 128];
}

ModuleMemory memoryFromImage(std::span<const uint8_t> image) {
  ModuleMemory m;
  if (image.empty()) return m;
  auto take = [&](const PageKey& key) {
    const auto at = flatImageOffset(image[0], requestFor(key));
    if (!at || *at + 128 > image.size()) return;
    HalfPage h;
    std::memcpy(h.data(), image.data() + *at, h.size());
    m.put(key, h);
  };
  take(lowerPage());
  if (image[0] == 0x03) {
    take(upperPage(0));
    take(lowerPage(kA2));
    take(upperPage(0, 0, kA2));
  } else {
    for (unsigned p = 0; p <= 0xff; ++p) take(upperPage(static_cast<uint8_t>(p)));
  }
  return m;
}

std::optional<Spec> specOf(uint8_t identifier) {
  switch (identifier) {
    case 0x03:
      return Spec::kSff8472;
    case 0x0c:
    case 0x0d:
    case 0x11:
      return Spec::kSff8636;
    case 0x18:
    case 0x19:
    case 0x1b:
    case 0x1e:
    case 0x1f:
    case 0x20:
      return Spec::kCmis;
  }
  return std::nullopt;
}

bool Identity::dom() const {
  for (bool m : monitored) {
    if (m) return true;
  }
  return false;
}

Result<Identity> decodeIdentity(const ModuleMemory& memory) {
  const HalfPage* lower = memory.find(lowerPage());
  if (lower == nullptr) return Error{"lower page not read", ENODATA};
  const uint8_t identifier = (*lower)[0];
  if (identifier == 0x00) return Error{"identifier 0x00: no module (or unspecified)", ENODATA};
  const auto spec = specOf(identifier);
  if (!spec)
    return Error{fmt::format("identifier 0x{:02x} ({}): not a form factor we decode", identifier,
                             typeName(identifier)),
                 EPROTO};
  Identity id;
  switch (*spec) {
    case Spec::kSff8472:
      id = sff8472Identity(*lower);
      break;
    case Spec::kSff8636: {
      std::vector<std::string> unused;
      const HalfPage* p0 = memory.find(upperPage(0));
      if (p0 == nullptr) return Error{"SFF-8636 page 00h not read", ENODATA};
      id = sff8636Identity(*lower, p0, unused);
      break;
    }
    case Spec::kCmis: {
      const HalfPage* p0 = memory.find(upperPage(0));
      if (p0 == nullptr) return Error{"CMIS page 00h not read", ENODATA};
      id = cmisIdentity(*lower, p0, memory.find(upperPage(1)));
      break;
    }
  }
  id.identifier = identifier;
  id.type = typeName(identifier);
  return id;
}

std::vector<PageKey> identityPages(Spec spec, const ModuleMemory& lowerOnly) {
  const HalfPage* lower = lowerOnly.find(lowerPage());
  switch (spec) {
    case Spec::kSff8472:
      return {};  // A0h 0..127 holds the whole identity
    case Spec::kSff8636:
      if (lower != nullptr && ((*lower)[2] & 0x04) == 0) return {upperPage(0), upperPage(3)};
      return {upperPage(0)};
    case Spec::kCmis:
      if (lower != nullptr && ((*lower)[2] & 0x80) == 0)
        return {upperPage(0), upperPage(1), upperPage(2)};
      return {upperPage(0)};
  }
  return {};
}

std::vector<PageKey> monitorPages(const Identity& id) {
  if (!id.dom()) return {};
  switch (id.spec) {
    case Spec::kSff8472:
      return {lowerPage(kA2)};
    case Spec::kSff8636:
      return {};  // the lower page, read every run anyway
    case Spec::kCmis:
      if (id.paged && (id.monitored[2] || id.monitored[3] || id.monitored[4]))
        return {upperPage(0x11)};
      return {};
  }
  return {};
}

Diagnostics decodeDiagnostics(const ModuleMemory& memory, const Identity& id) {
  Diagnostics d;
  if (!id.dom()) return d;
  if (memory.find(lowerPage()) == nullptr) {
    d.issues.emplace_back("lower page not read");
    return d;
  }
  switch (id.spec) {
    case Spec::kSff8472:
      sff8472Diagnostics(memory, id, d);
      break;
    case Spec::kSff8636:
      sff8636Diagnostics(memory, id, d);
      break;
    case Spec::kCmis:
      cmisDiagnostics(memory, id, d);
      break;
  }
  // Thresholds share their values' domain (an externally calibrated one is computed too).
  for (size_t q = 0; q < kQuantities; ++q) {
    if (!d.thresholds[q]) continue;
    for (const double v : *d.thresholds[q]) {
      if (!checked(v, static_cast<Quantity>(q), "threshold", d.issues)) {
        d.thresholds[q].reset();
        break;
      }
    }
  }
  return d;
}

}  // namespace fabricmon::transceiver
