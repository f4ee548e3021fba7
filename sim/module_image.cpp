#include "sim/module_image.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace fabricmon::sim {

namespace {

using Page = std::array<uint8_t, 128>;

// The LSBs of SFF-8472 §9.2 / SFF-8636 §6.2.4 / CMIS §8.2.5.
constexpr std::array<double, 5> kLsb{1.0 / 256, 100e-6, 2e-6, 0.1e-6, 0.1e-6};

uint16_t encode(double value, ModuleQuantity q) {
  const double raw = std::round(value / kLsb[static_cast<size_t>(q)]);
  if (q == ModuleQuantity::kTemperature) {
    return static_cast<uint16_t>(static_cast<int16_t>(std::clamp(raw, -32768.0, 32767.0)));
  }
  return static_cast<uint16_t>(std::clamp(raw, 0.0, 65535.0));
}

void put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v & 0xff);
}

void putAscii(uint8_t* p, const std::string& s, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = i < s.size() ? static_cast<uint8_t>(s[i]) : ' ';
}

uint8_t sum(const uint8_t* p, size_t from, size_t to) {
  unsigned s = 0;
  for (size_t i = from; i <= to; ++i) s += p[i];
  return static_cast<uint8_t>(s & 0xff);
}

double lane(const std::vector<double>& v, size_t i, double fallback) {
  if (v.empty()) return fallback;
  return v[std::min(i, v.size() - 1)];
}

// Four thresholds in the layout of all three specs: high alarm, low alarm, high warning, low
// warning.
void putThresholds(uint8_t* p, const ModuleParams& m, ModuleQuantity q, double factor = 1.0) {
  if (!m.thresholdsSupported) return;
  const auto& t = m.thresholds[static_cast<size_t>(q)];
  put16(p + 0, encode(t[0] / factor, q));
  put16(p + 2, encode(t[3] / factor, q));
  put16(p + 4, encode(t[1] / factor, q));
  put16(p + 6, encode(t[2] / factor, q));
}

bool flagSet(const ModuleParams& m, ModuleQuantity q, ModuleLevel l, unsigned laneNo) {
  return std::any_of(m.flags.begin(), m.flags.end(), [&](const ModuleFlagSet& f) {
    return f.quantity == q && f.level == l && f.lane == laneNo;
  });
}

std::vector<uint8_t> sff8472(const ModuleParams& m) {
  std::vector<uint8_t> img(512, 0);
  uint8_t* a0 = img.data();
  uint8_t* a2 = img.data() + 256;
  a0[0] = 0x03;
  a0[1] = 0x04;
  a0[2] = m.connector;
  if (!m.dom) {
    a0[8] = 0x04;  // SFP+ passive cable
    a0[18] = static_cast<uint8_t>(m.cableLengthMeters);
  } else {
    a0[3] = 0x20;  // 10GBASE-SR compliance (25G SR is in byte 36: 0x02)
    a0[36] = 0x02;
  }
  a0[12] = 0xff;  // nominal rate: see byte 66
  putAscii(a0 + 20, m.vendor, 16);
  a0[37] = 0x00, a0[38] = 0x02, a0[39] = 0xc9;
  putAscii(a0 + 40, m.partNumber, 16);
  putAscii(a0 + 56, m.revision, 4);
  if (m.dom) put16(a0 + 60, 850);  // wavelength, nm
  a0[63] = sum(a0, 0, 62);
  putAscii(a0 + 68, m.serialNumber, 16);
  putAscii(a0 + 84, "250101  ", 8);
  if (m.dom) {
    a0[92] =
        0x40 | (m.externalCalibration ? 0x10 : 0x20) | 0x08;  // DDM, calibration, average Rx power
    a0[93] = 0x80;                                            // alarm/warning flags implemented
    a0[94] = 0x08;                                            // SFF-8472 rev 12.3
  }
  a0[95] = sum(a0, 64, 94);
  if (!m.dom) return img;

  // Externally calibrated: the module stores raw = value / 2 and a slope of 2.0 for the linear
  // quantities (offset 0), and Rx power as raw = value·2 with the polynomial 0 + 0.5·x.
  const double linear = m.externalCalibration ? 2.0 : 1.0;
  putThresholds(a2 + 0, m, ModuleQuantity::kTemperature, linear);
  putThresholds(a2 + 8, m, ModuleQuantity::kSupplyVoltage, linear);
  putThresholds(a2 + 16, m, ModuleQuantity::kTxBias, linear);
  putThresholds(a2 + 24, m, ModuleQuantity::kTxPower, linear);
  putThresholds(a2 + 32, m, ModuleQuantity::kRxPower, m.externalCalibration ? 0.5 : 1.0);
  if (m.externalCalibration) {
    const float half = 0.5f;
    uint32_t bits;
    std::memcpy(&bits, &half, 4);
    for (int i = 0; i < 4; ++i)
      a2[68 + i] = static_cast<uint8_t>(bits >> (24 - 8 * i));   // Rx_PWR(1)
    for (size_t at : {76, 80, 84, 88}) put16(a2 + at, 2 * 256);  // slopes 2.0, offsets 0
  }
  a2[95] = sum(a2, 0, 94);
  put16(a2 + 96, encode(m.temperatureCelsius / linear, ModuleQuantity::kTemperature));
  put16(a2 + 98, encode(m.supplyVolts / linear, ModuleQuantity::kSupplyVoltage));
  put16(a2 + 100, encode(lane(m.biasAmperes, 0, 0.0065) / linear, ModuleQuantity::kTxBias));
  put16(a2 + 102, encode(lane(m.txPowerWatts, 0, 0.6e-3) / linear, ModuleQuantity::kTxPower));
  put16(a2 + 104, encode(lane(m.rxPowerWatts, 0, 0.55e-3) * (m.externalCalibration ? 2.0 : 1.0),
                         ModuleQuantity::kRxPower));
  for (const bool warn : {false, true}) {
    const ModuleLevel hi = warn ? ModuleLevel::kHighWarning : ModuleLevel::kHighAlarm;
    const ModuleLevel lo = warn ? ModuleLevel::kLowWarning : ModuleLevel::kLowAlarm;
    uint8_t b0 = 0, b1 = 0;
    const std::array<std::pair<ModuleQuantity, unsigned>, 4> q4{
        {{ModuleQuantity::kTemperature, 0},
         {ModuleQuantity::kSupplyVoltage, 0},
         {ModuleQuantity::kTxBias, 1},
         {ModuleQuantity::kTxPower, 1}}};
    for (size_t i = 0; i < 4; ++i) {
      if (flagSet(m, q4[i].first, hi, q4[i].second)) b0 |= static_cast<uint8_t>(1u << (7 - 2 * i));
      if (flagSet(m, q4[i].first, lo, q4[i].second)) b0 |= static_cast<uint8_t>(1u << (6 - 2 * i));
    }
    if (flagSet(m, ModuleQuantity::kRxPower, hi, 1)) b1 |= 0x80;
    if (flagSet(m, ModuleQuantity::kRxPower, lo, 1)) b1 |= 0x40;
    a2[warn ? 116 : 112] = b0;
    a2[warn ? 117 : 113] = b1;
  }
  return img;
}

uint8_t nibbleFlags(const ModuleParams& m, ModuleQuantity q, unsigned laneNo) {
  uint8_t n = 0;
  if (flagSet(m, q, ModuleLevel::kHighAlarm, laneNo)) n |= 8;
  if (flagSet(m, q, ModuleLevel::kLowAlarm, laneNo)) n |= 4;
  if (flagSet(m, q, ModuleLevel::kHighWarning, laneNo)) n |= 2;
  if (flagSet(m, q, ModuleLevel::kLowWarning, laneNo)) n |= 1;
  return n;
}

std::vector<uint8_t> sff8636(const ModuleParams& m) {
  std::vector<uint8_t> img(640, 0);
  uint8_t* lo = img.data();
  uint8_t* p0 = img.data() + 128;  // upper page 00h: p0[i] is byte 128 + i
  uint8_t* p3 = img.data() + 512;  // upper page 03h
  lo[0] = m.identifier;
  lo[1] = 0x08;  // SFF-8636 rev 2.10 or later (ethtool prints it)
  lo[2] = 0x00;  // paged memory, data ready
  if (m.dom) {
    lo[6] = static_cast<uint8_t>(nibbleFlags(m, ModuleQuantity::kTemperature, 0) << 4);
    lo[7] = static_cast<uint8_t>(nibbleFlags(m, ModuleQuantity::kSupplyVoltage, 0) << 4);
    for (const auto& [at, q] :
         {std::pair{9, ModuleQuantity::kRxPower}, std::pair{11, ModuleQuantity::kTxBias},
          std::pair{13, ModuleQuantity::kTxPower}}) {
      for (unsigned l = 1; l <= 4; ++l) {
        const uint8_t n = nibbleFlags(m, q, l);
        lo[at + (l - 1) / 2] |= static_cast<uint8_t>(l % 2 == 1 ? n << 4 : n);
      }
    }
    put16(lo + 22, encode(m.temperatureCelsius, ModuleQuantity::kTemperature));
    put16(lo + 26, encode(m.supplyVolts, ModuleQuantity::kSupplyVoltage));
    for (size_t l = 0; l < 4; ++l) {
      put16(lo + 34 + 2 * l, encode(lane(m.rxPowerWatts, l, 0.55e-3), ModuleQuantity::kRxPower));
      put16(lo + 42 + 2 * l, encode(lane(m.biasAmperes, l, 0.0065), ModuleQuantity::kTxBias));
      put16(lo + 50 + 2 * l, encode(lane(m.txPowerWatts, l, 0.6e-3), ModuleQuantity::kTxPower));
    }
  }
  p0[0] = m.identifier;
  p0[1] = 0xcc;  // power class 3.5 W, CLEI present, CDR in Tx and Rx
  p0[2] = m.connector;
  p0[3] = m.dom ? 0x80 : 0x00;  // extended compliance (byte 192) applies
  p0[11] = 0x05;                // 64B/66B
  p0[12] = 0xff;                // nominal rate in byte 222
  if (m.dom) {
    p0[15] = 50;    // OM3 length, 2 m units: 100 m
    p0[19] = 0x00;  // 850 nm VCSEL
  } else {
    p0[18] = static_cast<uint8_t>(m.cableLengthMeters);
    p0[19] = 0xa0;  // copper cable, unequalized
  }
  putAscii(p0 + 20, m.vendor, 16);
  p0[37] = 0x00, p0[38] = 0x02, p0[39] = 0xc9;
  putAscii(p0 + 40, m.partNumber, 16);
  putAscii(p0 + 56, m.revision, 2);
  if (m.dom) put16(p0 + 58, 850 * 20);  // wavelength in 0.05 nm
  p0[62] = 70;                          // max case temperature
  p0[63] = sum(p0, 0, 62);
  p0[64] = m.dom ? 0x02 : 0x0b;  // 100GBASE-SR4, or 100GBASE-CR4
  putAscii(p0 + 68, m.serialNumber, 16);
  putAscii(p0 + 84, "250101  ", 8);
  if (m.dom) p0[92] = 0x08 | 0x30 | (m.txPowerMonitor ? 0x04 : 0x00);  // byte 220
  p0[94] = 0xff / 4;  // byte 222: nominal rate, 250 Mb/s units
  p0[95] = sum(p0, 64, 94);
  if (m.dom) {
    putThresholds(p3 + 0, m, ModuleQuantity::kTemperature);
    putThresholds(p3 + 16, m, ModuleQuantity::kSupplyVoltage);
    putThresholds(p3 + 48, m, ModuleQuantity::kRxPower);
    putThresholds(p3 + 56, m, ModuleQuantity::kTxBias);
    putThresholds(p3 + 64, m, ModuleQuantity::kTxPower);
  }
  return img;
}

std::vector<uint8_t> cmis(const ModuleParams& m) {
  const bool paged = m.cmisLanePage;
  std::vector<uint8_t> img(paged ? 128 * 19 : 256, 0);
  auto page = [&](unsigned p) {
    return img.data() + 128 * (p + 1);
  };  // upper page p, byte 128 + i at [i]
  uint8_t* lo = img.data();
  lo[0] = m.identifier;
  lo[1] = 0x50;  // CMIS 5.0
  lo[2] = paged ? 0x00 : 0x80;
  lo[3] = 0x03 << 1;  // ModuleReady
  if (m.dom) {
    uint8_t b9 = 0;
    const std::array<std::pair<ModuleQuantity, int>, 2> mods{
        {{ModuleQuantity::kTemperature, 0}, {ModuleQuantity::kSupplyVoltage, 4}}};
    for (const auto& [q, shift] : mods) {
      if (flagSet(m, q, ModuleLevel::kHighAlarm, 0)) b9 |= static_cast<uint8_t>(1u << shift);
      if (flagSet(m, q, ModuleLevel::kLowAlarm, 0)) b9 |= static_cast<uint8_t>(2u << shift);
      if (flagSet(m, q, ModuleLevel::kHighWarning, 0)) b9 |= static_cast<uint8_t>(4u << shift);
      if (flagSet(m, q, ModuleLevel::kLowWarning, 0)) b9 |= static_cast<uint8_t>(8u << shift);
    }
    lo[9] = b9;
    put16(lo + 14, encode(m.temperatureCelsius, ModuleQuantity::kTemperature));
    put16(lo + 16, encode(m.supplyVolts, ModuleQuantity::kSupplyVoltage));
  }
  lo[85] = m.dom ? 0x02 : 0x03;  // SMF, or passive copper
  // Application 1: 400GAUI-4 host / 400GBASE-DR4 media (SFF-8024 host 0x50? media 0x1c).
  lo[86] = m.dom ? 0x1c : 0x1c;
  lo[87] = m.dom ? 0x1c : 0x00;
  lo[88] = static_cast<uint8_t>(4u << 4 | (m.lanes & 0x0f));
  lo[89] = 0x01;
  lo[90] = 0xff;  // end of the application list
  uint8_t* p0 = page(0);
  p0[0] = m.identifier;
  putAscii(p0 + 1, m.vendor, 16);
  p0[17] = 0x00, p0[18] = 0x02, p0[19] = 0xc9;
  putAscii(p0 + 20, m.partNumber, 16);
  putAscii(p0 + 36, m.revision, 2);
  putAscii(p0 + 38, m.serialNumber, 16);
  putAscii(p0 + 54, "250101  ", 8);
  p0[72] = 0x40;  // max power 16 W in 0.25 W units (byte 201)
  p0[73] = 64;
  if (!m.dom)
    p0[74] = static_cast<uint8_t>(0x40 | (m.cableLengthMeters & 0x3f));  // byte 202: 1 m units
  p0[75] = m.connector;                                                  // byte 203
  p0[84] = m.dom ? 0x06 : 0x0a;  // byte 212: 1310 nm EML, or copper unequalized
  p0[94] = sum(p0, 0, 93);       // byte 222
  if (!paged) return img;
  uint8_t* p1 = page(1);
  p1[142 - 128] = 0x00;  // bank 0 only
  if (m.dom) {
    p1[159 - 128] = 0x03;  // temperature and Vcc monitors
    p1[160 - 128] =
        static_cast<uint8_t>(0x01 | (m.txPowerMonitor ? 0x02 : 0) | (m.rxPowerMonitor ? 0x04 : 0));
    uint8_t* p2 = page(2);
    putThresholds(p2 + 0, m, ModuleQuantity::kTemperature);
    putThresholds(p2 + 8, m, ModuleQuantity::kSupplyVoltage);
    putThresholds(p2 + 48, m, ModuleQuantity::kTxPower);
    putThresholds(p2 + 56, m, ModuleQuantity::kTxBias);
    putThresholds(p2 + 64, m, ModuleQuantity::kRxPower);
    uint8_t* p11 = page(0x11);
    for (unsigned l = 1; l <= std::min(m.lanes, 8u); ++l) {
      const size_t i = l - 1;
      put16(p11 + 154 - 128 + 2 * i,
            encode(lane(m.txPowerWatts, i, 1.0e-3), ModuleQuantity::kTxPower));
      put16(p11 + 170 - 128 + 2 * i,
            encode(lane(m.biasAmperes, i, 0.045), ModuleQuantity::kTxBias));
      put16(p11 + 186 - 128 + 2 * i,
            encode(lane(m.rxPowerWatts, i, 0.9e-3), ModuleQuantity::kRxPower));
      for (const auto& [at, q] :
           {std::pair{139, ModuleQuantity::kTxPower}, std::pair{143, ModuleQuantity::kTxBias},
            std::pair{149, ModuleQuantity::kRxPower}}) {
        const std::array<ModuleLevel, 4> order{ModuleLevel::kHighAlarm, ModuleLevel::kLowAlarm,
                                               ModuleLevel::kHighWarning, ModuleLevel::kLowWarning};
        for (size_t k = 0; k < 4; ++k) {
          if (flagSet(m, q, order[k], l)) p11[at - 128 + k] |= static_cast<uint8_t>(1u << i);
        }
      }
    }
  }
  return img;
}

}  // namespace

void latchFlags(ModuleParams& m) {
  if (!m.dom || !m.thresholdsSupported) return;
  auto judge = [&](ModuleQuantity q, double v, unsigned lane) {
    const auto& t = m.thresholds[static_cast<size_t>(q)];
    if (v >= t[0]) m.flags.push_back({q, ModuleLevel::kHighAlarm, lane});
    if (v >= t[1]) m.flags.push_back({q, ModuleLevel::kHighWarning, lane});
    if (v <= t[2]) m.flags.push_back({q, ModuleLevel::kLowWarning, lane});
    if (v <= t[3]) m.flags.push_back({q, ModuleLevel::kLowAlarm, lane});
  };
  judge(ModuleQuantity::kTemperature, m.temperatureCelsius, 0);
  judge(ModuleQuantity::kSupplyVoltage, m.supplyVolts, 0);
  const unsigned lanes = m.identifier == 0x03 ? 1 : m.identifier <= 0x11 ? 4 : m.lanes;
  for (unsigned l = 1; l <= lanes; ++l) {
    if (!m.biasAmperes.empty()) judge(ModuleQuantity::kTxBias, lane(m.biasAmperes, l - 1, 0), l);
    if (!m.txPowerWatts.empty() && m.txPowerMonitor)
      judge(ModuleQuantity::kTxPower, lane(m.txPowerWatts, l - 1, 0), l);
    if (!m.rxPowerWatts.empty() && m.rxPowerMonitor)
      judge(ModuleQuantity::kRxPower, lane(m.rxPowerWatts, l - 1, 0), l);
  }
}

std::vector<uint8_t> buildModuleImage(const ModuleParams& params) {
  switch (params.identifier) {
    case 0x03:
      return sff8472(params);
    case 0x0c:
    case 0x0d:
    case 0x11:
      return sff8636(params);
    default:
      return cmis(params);
  }
}

ModuleParams cmis400gModule(std::string serial, bool osfp) {
  ModuleParams m;
  m.identifier = osfp ? 0x19 : 0x1e;
  m.partNumber = osfp ? "FS-OSFP-400G-DR4" : "FS-Q112-400G-DR4";
  m.serialNumber = std::move(serial);
  m.connector = 0x0c;
  m.lanes = 4;
  m.temperatureCelsius = 48.0;
  m.biasAmperes = {0.045};
  m.txPowerWatts = {1.1e-3};
  m.rxPowerWatts = {0.85e-3};
  // 400GBASE-DR4 (IEEE 802.3bs Table 124-7): Rx sensitivity about -4.4 dBm OMA, average receive
  // power down to -5.9 dBm; modules set the low warning around -7 to -8 dBm.
  m.thresholds = {{{80.0, 75.0, -5.0, -10.0},
                   {3.63, 3.465, 3.135, 2.97},
                   {0.100, 0.090, 0.010, 0.005},
                   {3.1623e-3, 2.5119e-3, 0.1995e-3, 0.1259e-3},    // +5, +4, -7, -9 dBm
                   {3.1623e-3, 2.5119e-3, 0.1585e-3, 0.0794e-3}}};  // +5, +4, -8, -11 dBm
  return m;
}

ModuleParams qsfp28Module(std::string serial) {
  ModuleParams m;
  m.serialNumber = std::move(serial);
  return m;
}

ModuleParams sfp28Module(std::string serial) {
  ModuleParams m;
  m.identifier = 0x03;
  m.partNumber = "FS-SFP28-SR";
  m.serialNumber = std::move(serial);
  m.connector = 0x07;
  m.lanes = 1;
  return m;
}

ModuleParams passiveCopperCable(std::string serial) {
  ModuleParams m;
  m.partNumber = "FS-Q28-CR4-2M";
  m.serialNumber = std::move(serial);
  m.connector = 0x23;
  m.dom = false;
  m.cableLengthMeters = 2;
  m.thresholdsSupported = false;
  return m;
}

}  // namespace fabricmon::sim
