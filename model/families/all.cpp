#include "model/families/all.hpp"

#include <unordered_map>
#include <vector>

#include "model/families/dcb.hpp"
#include "model/families/dcqcn.hpp"
#include "model/families/ethtool.hpp"
#include "model/families/jobs.hpp"
#include "model/families/fec.hpp"
#include "model/families/mad.hpp"
#include "model/families/neighbor.hpp"
#include "model/families/nic.hpp"
#include "model/families/netdev.hpp"
#include "model/families/pcie.hpp"
#include "model/families/pma.hpp"
#include "model/families/port.hpp"
#include "model/families/roce.hpp"
#include "model/families/topology.hpp"
#include "model/families/transceiver.hpp"

namespace fabricmon::families {

namespace {

const std::vector<const FamilyDef*>& catalogue() {
  static const auto* const list = [] {
    auto* v = new std::vector<const FamilyDef*>;
    for (auto group : {port::all(), pma::all(), roce::all(), netdev::all(), mad::all(), ethtool::all(),
                       dcb::all(), dcqcn::all(), neighbor::all(), topology::all(), pcie::all(), jobs::all(),
                       nic::all(), transceiver::all(), fec::all()}) {
      v->insert(v->end(), group.begin(), group.end());
    }
    return v;
  }();
  return *list;
}

}  // namespace

std::span<const FamilyDef* const> all() { return catalogue(); }

const FamilyDef* byName(std::string_view name) {
  static const auto* const index = [] {
    auto* m = new std::unordered_map<std::string_view, const FamilyDef*>;
    for (const FamilyDef* f : catalogue()) m->emplace(f->name, f);
    return m;
  }();
  const auto it = index->find(name);
  return it == index->end() ? nullptr : it->second;
}

}  // namespace fabricmon::families
