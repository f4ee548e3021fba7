#include "watchdog/subjects.hpp"

#include <algorithm>
#include <array>
#include <tuple>

#include "watchdog/history.hpp"

namespace fabricmon::watchdog {
namespace {

constexpr char kSep = '\x1f';

/// What a family's series are about, from its key labels.
enum class Scope : uint8_t { kNone, kPort, kInterface, kDevice };

Scope scopeOf(Fam fam) {
  const auto& k = inputFamily(fam).keyLabels;
  if (k[0] == "device") return k[1] == "port" ? Scope::kPort : Scope::kDevice;
  if (k[0] == "interface") return Scope::kInterface;
  return Scope::kNone;  // pci_address: read family by family
}

/// The first two parts of a History key ("<tag><p0>\x1f<p1>..."): the subject; absent parts are empty.
std::array<std::string_view, 2> headOf(std::string_view key) {
  std::array<std::string_view, 2> out{};
  key.remove_prefix(1);  // the family tag
  for (auto& part : out) {
    const size_t sep = key.find(kSep);
    part = key.substr(0, sep);
    if (sep == std::string_view::npos) break;
    key.remove_prefix(sep + 1);
  }
  return out;
}

/// Whether the joined further key labels `extra` are a, b, c (missing pieces read as empty).
/// Compared in place, piece by piece, with no search for the separator: a rule looks its inputs
/// up by priority or lane at every evaluation (docs/benchmarks.md, "Fifth pass: CPU").
bool extraIs(std::string_view extra, std::array<std::string_view, 3> want) {
  size_t pos = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const std::string_view w = want[i];
    if (extra.size() - pos < w.size() || extra.compare(pos, w.size(), w) != 0) return false;
    pos += w.size();
    if (pos == extra.size()) {
      for (size_t j = i + 1; j < want.size(); ++j) {
        if (!want[j].empty()) return false;
      }
      return true;
    }
    if (extra[pos] != kSep) return false;  // the piece is longer than the wanted one
    ++pos;
  }
  // Pieces beyond the third must be empty.
  for (; pos < extra.size(); ++pos) {
    if (extra[pos] != kSep) return false;
  }
  return true;
}

struct Item {
  std::string_view a, b;  ///< the subject: device and port, or interface, or device
  Fam fam;
  std::string_view extra;
  const Tracked* s;
  auto order() const { return std::tuple(a, b, fam, extra); }
};

}  // namespace

void Inputs::index() {
  starts_.clear();
  if (!series_.empty()) {
    starts_.assign(kFamCount + 1, 0);
    size_t i = 0;
    for (size_t f = 0; f <= kFamCount; ++f) {
      while (i < fams_.size() && static_cast<size_t>(fams_[i]) < f) ++i;
      starts_[f] = static_cast<uint32_t>(i);
    }
  }
  fams_.clear();
  fams_.shrink_to_fit();
}

std::string_view Inputs::extraOf(const Tracked& s) const {
  return prefix_ <= s.key().size() ? s.key().substr(prefix_) : std::string_view{};
}

std::string_view Inputs::label(const Tracked& s, size_t i) const {
  std::string_view extra = extraOf(s);
  for (; i > 0; --i) {
    const size_t sep = extra.find(kSep);
    if (sep == std::string_view::npos) return {};
    extra.remove_prefix(sep + 1);
  }
  return extra.substr(0, extra.find(kSep));
}

const Tracked* Inputs::in(Fam fam, std::string_view a, std::string_view b, std::string_view c) const {
  const auto r = range(fam);
  // A family's series are sorted by their further labels as one string (Subjects::build), and the
  // strings that begin with `a` -- among them every series whose first label is `a` -- are
  // contiguous from the first one not below `a`. A rule asks for a priority (8), a DSCP (64) or a
  // priority and kind (24) of every interface at every pass: halving, not a scan of the family.
  auto it = std::lower_bound(r.begin(), r.end(), a,
                             [this](const Tracked* s, std::string_view want) { return extraOf(*s) < want; });
  for (; it != r.end(); ++it) {
    const std::string_view extra = extraOf(**it);
    if (extra.substr(0, a.size()) != a) break;
    if (extraIs(extra, {a, b, c})) return *it;
  }
  return nullptr;
}

const Tracked* PortRef::devIn(Fam fam, std::string_view a) const {
  if (dev == nullptr) return nullptr;
  return a.empty() ? dev->inputs.in(fam) : dev->inputs.in(fam, a);
}

void Subjects::build(std::span<const std::vector<Tracked*>> byFamily) {
  ports_.clear();
  portInputs_.clear();
  ifaces_.clear();
  devices_.clear();
  std::vector<Item> port, iface, device;
  for (size_t f = 0; f < byFamily.size(); ++f) {
    const Fam fam = static_cast<Fam>(f);
    const Scope scope = scopeOf(fam);
    if (scope == Scope::kNone) continue;
    for (const Tracked* s : byFamily[f]) {
      const auto head = headOf(s->key());
      if (scope == Scope::kPort) {
        // "<tag><device>\x1f<port>\x1f": the further labels follow.
        const size_t prefix = 1 + head[0].size() + 1 + head[1].size() + 1;
        port.push_back(Item{head[0], head[1], fam, s->key().substr(std::min(prefix, s->key().size())), s});
      } else {
        const size_t prefix = 1 + head[0].size() + 1;
        (scope == Scope::kInterface ? iface : device)
            .push_back(Item{head[0], {}, fam, s->key().substr(std::min(prefix, s->key().size())), s});
      }
    }
  }
  auto byOrder = [](const Item& x, const Item& y) { return x.order() < y.order(); };
  std::sort(port.begin(), port.end(), byOrder);
  std::sort(iface.begin(), iface.end(), byOrder);
  std::sort(device.begin(), device.end(), byOrder);

  // The join: one row per port.
  for (const Item& it : port) {
    if (it.fam == Fam::kPortInfo) {
      ports_.push_back(PortRef{it.a, it.b, it.extra.substr(0, it.extra.find(kSep)), it.s->label("link_layer")});
    } else if (it.fam == Fam::kPortState) {
      ports_.push_back(PortRef{it.a, it.b, {}, {}});
    }
  }
  std::sort(ports_.begin(), ports_.end(), [](const PortRef& a, const PortRef& b) {
    return std::tuple(a.device, a.port, a.interface.empty(), a.interface) <
           std::tuple(b.device, b.port, b.interface.empty(), b.interface);
  });
  ports_.erase(std::unique(ports_.begin(), ports_.end(),
                           [](const PortRef& a, const PortRef& b) { return a.device == b.device && a.port == b.port; }),
               ports_.end());

  // Each port's own series (series of ports outside the join are no rule's subject).
  portInputs_.resize(ports_.size());
  {
    size_t i = 0;
    for (size_t p = 0; p < ports_.size(); ++p) {
      const auto key = std::pair(ports_[p].device, ports_[p].port);
      while (i < port.size() && std::pair(port[i].a, port[i].b) < key) ++i;
      Inputs& in = portInputs_[p];
      in.prefix_ = static_cast<uint16_t>(1 + key.first.size() + 1 + key.second.size() + 1);
      for (; i < port.size() && std::pair(port[i].a, port[i].b) == key; ++i) {
        in.fams_.push_back(port[i].fam);
        in.series_.push_back(port[i].s);
      }
      in.index();
      ports_[p].inputs = &in;
    }
  }

  // Interfaces: every one with a series, and every one a port names.
  std::vector<std::string_view> names;
  for (const Item& it : iface) {
    if (names.empty() || names.back() != it.a) names.push_back(it.a);
  }
  for (const PortRef& p : ports_) {
    if (!p.interface.empty()) names.push_back(p.interface);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  ifaces_.resize(names.size());
  {
    size_t i = 0;
    for (size_t n = 0; n < names.size(); ++n) {
      IfaceRef& ref = ifaces_[n];
      ref.name = names[n];
      ref.inputs.prefix_ = static_cast<uint16_t>(1 + names[n].size() + 1);
      while (i < iface.size() && iface[i].a < names[n]) ++i;
      for (; i < iface.size() && iface[i].a == names[n]; ++i) {
        ref.inputs.fams_.push_back(iface[i].fam);
        ref.inputs.series_.push_back(iface[i].s);
      }
      ref.inputs.index();
    }
  }

  // Devices.
  for (size_t i = 0; i < device.size();) {
    DeviceRef ref;
    ref.name = device[i].a;
    ref.inputs.prefix_ = static_cast<uint16_t>(1 + ref.name.size() + 1);
    for (; i < device.size() && device[i].a == ref.name; ++i) {
      ref.inputs.fams_.push_back(device[i].fam);
      ref.inputs.series_.push_back(device[i].s);
    }
    ref.inputs.index();
    devices_.push_back(std::move(ref));
  }

  // Links, once every vector has its final size. A port names its interface; the interface's port
  // is the first row (in port order) that names it.
  for (PortRef& p : ports_) {
    if (!p.interface.empty()) {
      IfaceRef* ref = const_cast<IfaceRef*>(interface(p.interface));
      p.iface = ref;
      if (ref->port == nullptr) ref->port = &p;
      ref->ports.push_back(&p);
    }
    auto d = std::lower_bound(devices_.begin(), devices_.end(), p.device,
                              [](const DeviceRef& r, std::string_view name) { return r.name < name; });
    if (d != devices_.end() && d->name == p.device) p.dev = &*d;
  }
}

const IfaceRef* Subjects::interface(std::string_view name) const {
  if (name.empty()) return nullptr;
  auto it = std::lower_bound(ifaces_.begin(), ifaces_.end(), name,
                             [](const IfaceRef& r, std::string_view n) { return r.name < n; });
  return it != ifaces_.end() && it->name == name ? &*it : nullptr;
}

const PortRef* Subjects::byPort(std::string_view device, std::string_view port) const {
  auto it = std::lower_bound(ports_.begin(), ports_.end(), std::pair(device, port),
                             [](const PortRef& p, const auto& k) { return std::pair(p.device, p.port) < k; });
  if (it != ports_.end() && it->device == device && it->port == port) return &*it;
  return nullptr;
}

}  // namespace fabricmon::watchdog
