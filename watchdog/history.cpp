#include "watchdog/history.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <new>
#include <utility>

namespace fabricmon::watchdog {
namespace {

// A source whose counters stand still for at least 1.5 polls between changes refreshes slower than
// we poll: its changes, not its polls, are the intervals to judge.
constexpr int64_t kLatchedNum = 3, kLatchedDen = 2;

Nanos nanos(std::chrono::steady_clock::time_point tp) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(tp.time_since_epoch()).count();
}

}  // namespace

// ---- CoarseRing ----

// A column of times, shared by the rings of a cohort. It advances only while every member is in
// step (has written its total for every point), so a member is at most one point behind: it either
// catches up (its push comes at the same instant: it would have pushed there too) or takes a copy
// of the column without that point. A member one behind reads the column without it too.
struct CoarseRing::Column {
  Nanos origin = kNever;
  Nanos width;
  Nanos lastT = kNever;     ///< time of the newest point
  Nanos evictedT = kNever;  ///< the point the newest one overwrote (kNever: none)
  uint32_t pushes = 0;
  uint32_t members = 0;     ///< rings reading it
  uint32_t inStep = 0;      ///< members that have written every point
  uint32_t refs = 0;        ///< members and the cohort that keeps it open
  uint16_t capacity;
  uint16_t head = 0;        ///< slot of the oldest point
  uint16_t size = 0;

  static constexpr Nanos kMilli = 1'000'000;
  uint32_t* ms() { return reinterpret_cast<uint32_t*>(this + 1); }
  const uint32_t* ms() const { return reinterpret_cast<const uint32_t*>(this + 1); }
  uint16_t slot(uint16_t i) const { return static_cast<uint16_t>((head + i) % capacity); }
  Nanos timeIn(uint16_t s) const { return origin + Nanos(ms()[s]) * kMilli; }

  static Column* make(Nanos width, uint16_t capacity) {
    void* p = ::operator new(sizeof(Column) + sizeof(uint32_t) * capacity);
    auto* c = new (p) Column;
    c->width = width;
    c->capacity = capacity;
    return c;
  }
  static Column* copy(const Column& from) {
    Column* c = make(from.width, from.capacity);
    c->origin = from.origin;
    c->lastT = from.lastT;
    c->evictedT = from.evictedT;
    c->pushes = from.pushes;
    c->head = from.head;
    c->size = from.size;
    std::memcpy(c->ms(), from.ms(), sizeof(uint32_t) * from.capacity);
    return c;
  }
  static void unref(Column* c) {
    if (--c->refs > 0) return;
    c->~Column();
    ::operator delete(c);
  }
  // Sets slot s to time t (times only grow: History::update drops older samples).
  void put(uint16_t s, Nanos t) {
    if (origin == kNever) origin = t;
    if ((t - origin) / kMilli > Nanos(UINT32_MAX)) {
      // 49 days past the origin: move it to the oldest point kept (the ring spans far less; when
      // the ring is full that is the point t overwrites, so no time kept reads before the origin).
      const Nanos oldest = size > 0 ? timeIn(slot(0)) : t;
      const auto shift = static_cast<uint32_t>((oldest - origin) / kMilli);
      for (uint16_t i = 0; i < size; ++i) ms()[slot(i)] -= shift;
      origin += Nanos(shift) * kMilli;
    }
    ms()[s] = static_cast<uint32_t>((t - origin) / kMilli);
  }
};

CoarseRing::Cohort& CoarseRing::Cohort::operator=(Cohort&& o) noexcept {
  if (this != &o) {
    if (open_ != nullptr) Column::unref(open_);
    open_ = std::exchange(o.open_, nullptr);
  }
  return *this;
}

CoarseRing::Cohort::~Cohort() {
  if (open_ != nullptr) Column::unref(open_);
}

namespace {
// Whether `v` reads back exactly from a float (NaN does not compare equal: it goes wide too).
bool exactFloat(double v) { return std::fabs(v) <= double(FLT_MAX) && double(static_cast<float>(v)) == v; }
}  // namespace

size_t CoarseRing::totalsBytes(Form form, uint16_t capacity) {
  switch (form) {
    case Form::kStill: return sizeof(double);
    case Form::kFloat: return sizeof(float) * capacity;
    case Form::kDouble: break;
  }
  return sizeof(double) * capacity;
}

CoarseRing::Block* CoarseRing::allocate(Column* col, Form form) {
  const size_t bytes = totalsOffset() + totalsBytes(form, col->capacity);
  auto* b = static_cast<Block*>(::operator new(bytes));
  std::memset(static_cast<void*>(b), 0, bytes);
  b->col = col;
  b->pushes = 0;
  b->form = form;
  b->held = false;
  return b;
}

// A ring begins still: most series a rule reads over a long window stand still most of the time
// (idle priorities, error counters), and then their ring is one total, not one per point.
CoarseRing::CoarseRing(Nanos width, uint16_t capacity) {
  Column* c = Column::make(width, capacity);
  c->members = c->inStep = c->refs = 1;
  block_ = allocate(c, Form::kStill);
}

CoarseRing& CoarseRing::operator=(CoarseRing&& o) noexcept {
  if (this != &o) {
    release();
    block_ = std::exchange(o.block_, nullptr);
  }
  return *this;
}

CoarseRing::~CoarseRing() { release(); }

void CoarseRing::release() {
  if (block_ == nullptr) return;
  Column* c = block_->col;
  if (!behind()) --c->inStep;
  --c->members;
  Column::unref(c);
  ::operator delete(block_);
  block_ = nullptr;
}

Nanos CoarseRing::width() const { return block_->col->width; }

size_t CoarseRing::bytes() const {
  return block_ ? totalsOffset() + totalsBytes(block_->form, block_->col->capacity) : 0;
}

bool CoarseRing::wide() const {
  return block_->form == Form::kDouble || (block_->form == Form::kStill && !exactFloat(totalAt(0)));
}

bool CoarseRing::sharesTimes() const { return block_ && block_->col->members > 1; }

bool CoarseRing::behind() const { return block_->pushes != block_->col->pushes; }

uint16_t CoarseRing::viewSize() const {
  const Column& c = *block_->col;
  if (!behind()) return c.size;
  return c.evictedT == kNever ? static_cast<uint16_t>(c.size - 1) : c.size;
}

uint16_t CoarseRing::viewSlot(uint16_t i) const {
  const Column& c = *block_->col;
  // Behind a push that overwrote the oldest point: that point (at the slot before head) is still
  // this ring's oldest.
  const uint16_t head = behind() && c.evictedT != kNever ? static_cast<uint16_t>((c.head + c.capacity - 1) % c.capacity) : c.head;
  return static_cast<uint16_t>((head + i) % c.capacity);
}

Nanos CoarseRing::viewTime(uint16_t i) const {
  const Column& c = *block_->col;
  if (i == 0 && behind() && c.evictedT != kNever) return c.evictedT;
  return c.timeIn(viewSlot(i));
}

void CoarseRing::setTotal(uint16_t slot, double total) {
  if (block_->form == Form::kStill) {
    auto* still = reinterpret_cast<double*>(totals());
    // Bit for bit: -0.0 is not 0.0, and a NaN is kept as the NaN it was.
    if (!block_->held || std::memcmp(still, &total, sizeof total) == 0) {
      *still = total;
      block_->held = true;
      return;
    }
    convert(exactFloat(*still) && exactFloat(total) ? Form::kFloat : Form::kDouble);
  }
  if (block_->form == Form::kFloat && !exactFloat(total)) convert(Form::kDouble);
  if (block_->form == Form::kDouble) {
    reinterpret_cast<double*>(totals())[slot] = total;
  } else {
    reinterpret_cast<float*>(totals())[slot] = static_cast<float>(total);
  }
}

void CoarseRing::convert(Form form) {
  Block* next = allocate(block_->col, form);
  next->pushes = block_->pushes;
  next->held = block_->held;
  auto* to = reinterpret_cast<std::byte*>(next) + totalsOffset();
  // Every slot, written or not: a slot never written is never read (viewSize bounds every read).
  for (uint16_t s = 0; s < block_->col->capacity; ++s) {
    if (form == Form::kDouble) {
      reinterpret_cast<double*>(to)[s] = totalAt(s);
    } else {
      reinterpret_cast<float*>(to)[s] = static_cast<float>(totalAt(s));
    }
  }
  ::operator delete(block_);
  block_ = next;
}

void CoarseRing::detach() {
  Column* c = block_->col;
  Column* n = Column::copy(*c);
  const bool wasBehind = behind();
  if (wasBehind) {
    // Without the column's newest point: the one this ring has not written.
    if (c->evictedT == kNever) {
      --n->size;
    } else {
      n->head = static_cast<uint16_t>((n->head + n->capacity - 1) % n->capacity);
      n->ms()[n->head] = static_cast<uint32_t>((c->evictedT - n->origin) / Column::kMilli);
    }
    --n->pushes;
  }
  n->lastT = n->evictedT = kNever;  // no other member can be behind it
  n->members = n->inStep = n->refs = 1;
  if (!wasBehind) --c->inStep;
  --c->members;
  Column::unref(c);
  block_->col = n;
  block_->pushes = n->pushes;
}

void CoarseRing::append(Nanos t, double total) {
  Column& c = *block_->col;
  uint16_t s;
  if (c.size < c.capacity) {
    s = c.slot(c.size);
    c.evictedT = kNever;
    c.put(s, t);
    ++c.size;
  } else {
    s = c.head;
    c.evictedT = c.timeIn(s);
    c.put(s, t);
    c.head = static_cast<uint16_t>((c.head + 1) % c.capacity);
  }
  c.lastT = t;
  ++c.pushes;
  c.inStep = 1;  // the others, if any, are one behind
  block_->pushes = c.pushes;
  setTotal(s, total);
}

void CoarseRing::push(Nanos t, double total, Cohort* cohort) {
  Column* c = block_->col;
  if (cohort != nullptr && c->pushes == 0) {
    // A new ring: join the column a new ring of the cohort opened at this instant.
    Column* o = cohort->open_;
    if (o != nullptr && o != c && o->pushes == 1 && o->lastT == t && o->inStep == o->members &&
        o->width == c->width && o->capacity == c->capacity) {
      --c->inStep;
      --c->members;
      Column::unref(c);
      ++o->members;
      ++o->inStep;
      ++o->refs;
      block_->col = o;
      block_->pushes = o->pushes;
      setTotal(o->slot(static_cast<uint16_t>(o->size - 1)), total);
      return;
    }
  }
  if (behind()) {
    if (t == c->lastT) {
      // The member that pushed this point was where this ring is, at the same instant.
      ++block_->pushes;
      ++c->inStep;
      setTotal(c->slot(static_cast<uint16_t>(c->size - 1)), total);
      return;
    }
    detach();
    c = block_->col;
  }
  if (c->size > 0 && t - c->timeIn(c->slot(static_cast<uint16_t>(c->size - 1))) < c->width) return;
  if (c->inStep != c->members) detach();  // others are behind: the column is not this ring's to move
  append(t, total);
  c = block_->col;
  if (cohort != nullptr && c->pushes == 1 && cohort->open_ != c) {
    if (cohort->open_ != nullptr) Column::unref(cohort->open_);
    cohort->open_ = c;
    ++c->refs;
  }
}

void CoarseRing::reshape(Nanos width, uint16_t capacity) {
  CoarseRing next(width, capacity);
  const uint16_t size = viewSize();
  const uint16_t keep = std::min(size, capacity);
  for (uint16_t i = 0; i < keep; ++i) {
    const auto k = static_cast<uint16_t>(size - keep + i);
    next.append(viewTime(k), totalAt(viewSlot(k)));
  }
  *this = std::move(next);
}

std::optional<CoarseRing::Point> CoarseRing::baseFor(Nanos t) const {
  const uint16_t size = viewSize();
  if (size == 0) return std::nullopt;
  // Times rise from the oldest point to the newest (a push comes at least `width` after the
  // newest), so the first point after t is found by halving: a rule's base is near the oldest of
  // ~60 points, where a scan from the newest would read them all, every pass, for every series.
  uint16_t lo = 0, hi = size;  // viewTime(i) <= t for every i < lo, > t for every i >= hi
  while (lo < hi) {
    const uint16_t mid = static_cast<uint16_t>(lo + (hi - lo) / 2);
    if (viewTime(mid) <= t) {
      lo = static_cast<uint16_t>(mid + 1);
    } else {
      hi = mid;
    }
  }
  const uint16_t i = lo == 0 ? 0 : static_cast<uint16_t>(lo - 1);
  return Point{viewTime(i), totalAt(viewSlot(i))};
}

// ---- PeakBuckets ----

void PeakBuckets::add(Nanos t, double value) {
  Nanos w = std::max<Nanos>(bucketWidth(), 1);
  Nanos start = t - (((t % w) + w) % w);
  Bucket& b = buckets_[static_cast<size_t>((start / w) % static_cast<Nanos>(kBuckets) + kBuckets) % kBuckets];
  if (b.start != start) b = Bucket{start, 0};
  b.max = std::max(b.max, static_cast<float>(value));
}

void PeakBuckets::addRate(Nanos t, double total, Nanos minSpan, double maxPerSecond, bool record) {
  const Point* base = nullptr;
  for (size_t i = 1; i <= recent_.size(); ++i) {  // newest first
    const Point& p = recent_[(next_ + recent_.size() - i) % recent_.size()];
    if (p.t == kNever || p.t >= t) break;
    base = &p;
    if (t - p.t >= minSpan) break;
  }
  if (record && base != nullptr && t - base->t >= minSpan) {
    double rate = (total - base->total) / (double(t - base->t) / kSecond);
    if (maxPerSecond > 0) rate = std::min(rate, maxPerSecond);
    add(t, std::max(rate, 0.0));
  }
  recent_[next_] = Point{t, total};
  next_ = static_cast<uint8_t>((next_ + 1) % recent_.size());
}

double PeakBuckets::peak(Nanos now) const {
  double best = 0;
  Nanos w = std::max<Nanos>(bucketWidth(), 1);
  for (const auto& b : buckets_) {
    if (b.start != kNever && b.start + w > now - window_ && b.start <= now) best = std::max(best, double(b.max));
  }
  return best;
}

void PeakBuckets::setWindow(Nanos window) {
  if (window == window_) return;
  window_ = window;
  buckets_ = {};
}

CoarseRing::Cohort* History::cohortFor(uint16_t collector, Nanos width) {
  auto& cohorts = collectors_[collector].cohorts;
  for (auto& [w, cohort] : cohorts) {
    if (w == width) return &cohort;
  }
  return &cohorts.emplace_back(width, CoarseRing::Cohort()).second;
}

// ---- RateJudgement, Tracked ----

Nanos RateJudgement::ownRefresh() const {
  if (gapCount == 0) return 0;
  return static_cast<Nanos>(double(gaps[medianSlot]) * kSecond);
}

void RateJudgement::addGap(float seconds) {
  gaps[gapNext] = seconds;
  gapNext = static_cast<uint8_t>((gapNext + 1) % kGapSlots);
  if (gapCount < kGapSlots) ++gapCount;
  // Until the ring is full the recorded gaps are slots [0, gapCount). The median is the gap of
  // rank gapCount / 2 (the upper one of an even count); its slot is kept, since equal gaps are
  // the same value whichever slot holds them.
  std::array<uint8_t, kGapSlots> order;
  for (uint8_t i = 0; i < gapCount; ++i) order[i] = i;
  std::nth_element(order.begin(), order.begin() + gapCount / 2, order.begin() + gapCount,
                   [this](uint8_t a, uint8_t b) { return gaps[a] < gaps[b]; });
  medianSlot = order[gapCount / 2];
}

Tracked::Window Tracked::over(Nanos window) const {
  Window w;
  if (!ring || samples < 2) return w;
  const auto base = ring.baseFor(t - window);
  if (!base || base->t >= t) return w;
  w.increase = total - base->total;
  w.seconds = double(t - base->t) / kSecond;
  w.full = base->t <= t - window;
  return w;
}

// ---- History ----

const FamilyDef History::kRefreshFamily{
    "fabricmon_counter_refresh_seconds",
    "How often a NIC counter source (an interface's ethtool stats, a port's hw_counters or PMA "
    "counters) "
    "refreshes its values, learned from how often its fastest-moving counter changes; a value near "
    "the poll "
    "interval means at least that often. Rates are judged over this period, never over one poll.",
    MetricType::kGauge, "seconds", "collector,device,port,interface"};

void History::setPlan(const HistoryPlan& plan) {
  plan_ = plan;
  forEachTracked([this](Tracked& s) { shape(s); });
}

void History::shape(Tracked& s) const {
  size_t f = static_cast<size_t>(s.fam);
  Nanos window = plan_.longWindow[f];
  if (window <= 0) {
    s.ring = CoarseRing();
  } else {
    Nanos width = std::max<Nanos>(window / kCoarseSlots, 1);
    // +2: the base point of a full window sits one width before it, and the newest point is "now".
    uint16_t capacity = kCoarseSlots + 2;
    if (!s.ring) {
      s.ring = CoarseRing(width, capacity);
      if (s.samples > 0) s.ring.push(s.t, s.total);
    } else if (s.ring.width() != width) {
      s.ring.reshape(width, capacity);
    }
  }
  if (!s.counter) return;  // a rate peak is a counter's
  RateJudgement& j = *s.counter;
  if (plan_.peak[f]) {
    if (!j.peak) j.peak = std::make_unique<RateJudgement::Peak>(plan_.peakWindow);
    j.peak->buckets.setWindow(plan_.peakWindow);
  } else {
    j.peak.reset();
  }
}

// ---- keys ----

namespace {

// FNV-1a over the bytes of the joined key, fed piece by piece: a key and its pieces hash alike.
constexpr uint64_t kFnvBasis = 14695981039346656037ull, kFnvPrime = 1099511628211ull;
inline uint64_t fnv(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) h = (h ^ c) * kFnvPrime;
  return h;
}
inline uint64_t fnv(uint64_t h, char c) { return (h ^ static_cast<unsigned char>(c)) * kFnvPrime; }

}  // namespace

void KeyParts::appendTo(std::string& out) const {
  out.clear();
  if (tag != 0) out.push_back(tag);
  for (uint8_t i = 0; i < count; ++i) {
    if (i > 0) out.push_back('\x1f');
    out.append(parts[i]);
  }
}

size_t KeyHash::operator()(std::string_view key) const { return fnv(kFnvBasis, key); }

size_t KeyHash::operator()(const KeyParts& key) const {
  uint64_t h = kFnvBasis;
  if (key.tag != 0) h = fnv(h, key.tag);
  for (uint8_t i = 0; i < key.count; ++i) {
    if (i > 0) h = fnv(h, '\x1f');
    h = fnv(h, key.parts[i]);
  }
  return h;
}

bool KeyEqual::operator()(const KeyParts& a, std::string_view b) const {
  if (a.tag != 0) {
    if (b.empty() || b[0] != a.tag) return false;
    b.remove_prefix(1);
  }
  for (uint8_t i = 0; i < a.count; ++i) {
    if (i > 0) {
      if (b.empty() || b[0] != '\x1f') return false;
      b.remove_prefix(1);
    }
    if (b.substr(0, a.parts[i].size()) != a.parts[i]) return false;
    b.remove_prefix(a.parts[i].size());
  }
  return b.empty();
}

KeyParts History::keyOf(Fam fam, std::string_view a, std::string_view b, std::string_view c, std::string_view d) {
  KeyParts k{static_cast<char>('A' + static_cast<int>(fam)), {a, b, c, d}, 3};
  if (!d.empty()) k.count = 4;
  return k;
}

// ---- the tracked series ----

Tracked& History::insert(const KeyParts& key) {
  return tracked_.insert(key, [&](Tracked& s) {
    key.appendTo(scratch_);
    s.key_ = std::string(scratch_);  // a copy holds no growth slack
  });
}

bool History::ingest(const Snapshot& snapshot) {
  bool changed = false;
  // A port that became (or stopped being) a management port: every series is decided again.
  if (!plan_.judgeManagement && management_.update(snapshot)) {
    tracked_.clear();
    byId_.clear();
    forgetPositions();
    for (auto& v : byFamily_) v.clear();
    indexDirty_ = true;
    changed = true;
    for (auto& c : collectors_) c.last.reset();  // re-read every batch under the new decision
  }
  for (auto& c : collectors_) c.present = false;
  std::vector<uint16_t> fresh;
  for (const auto& [name, batch] : snapshot.batches) {
    if (!batch || name == "watchdog") continue;
    auto it = std::find_if(collectors_.begin(), collectors_.end(), [&name = name](const auto& c) { return c.name == name; });
    if (it == collectors_.end()) {
      collectors_.push_back(CollectorSeen{name, nullptr, 0, false, {}, {}});
      it = collectors_.end() - 1;
    }
    it->present = true;
    if (it->last == batch) continue;
    const BatchPtr previous = std::exchange(it->last, batch);  // its series stay alive: see Position
    ++it->epoch;
    auto index = static_cast<uint16_t>(it - collectors_.begin());
    ingestBatch(*batch, index, it->epoch);
    fresh.push_back(index);
    changed = true;
  }
  // A series its collector no longer reports (device vanished) or whose collector left the snapshot
  // (stale) is forgotten: no history is kept, and no rule can judge it. One its collector reported
  // unread (Batch::unread) was marked seen above and is kept. The family index still
  // lists every series but those created in this pass, which were just seen.
  std::vector<bool> isFresh(collectors_.size(), false);
  for (uint16_t c : fresh) isFresh[c] = true;
  std::vector<Tracked*> gone;
  for (const auto& members : byFamily_) {
    for (Tracked* s : members) {
      const auto& c = collectors_[s->collector];
      if (!c.present || (isFresh[s->collector] && s->seenEpoch != c.epoch)) gone.push_back(s);
    }
  }
  for (Tracked* s : gone) tracked_.erase(*s);
  const bool erased = !gone.empty();
  if (erased) {
    indexDirty_ = true;
    changed = true;
  }
  if (erased || ++passesSinceIdSweep_ >= 64) forgetStaleIds(fresh);
  for (auto& c : collectors_) {
    if (c.present) continue;
    c.last.reset();
    std::vector<Position>().swap(c.positions);
  }
  if (indexDirty_) {
    for (auto& v : byFamily_) v.clear();
    forEachTracked([this](Tracked& s) { byFamily_[static_cast<size_t>(s.fam)].push_back(&s); });
    subjects_.build(byFamily_);
    indexDirty_ = false;
  }
  if (changed) learnRefresh();
  return changed;
}

void History::ingestBatch(const Batch& batch, uint16_t collector, uint32_t epoch) {
  const Nanos t = nanos(batch.monotonic);
  auto& positions = collectors_[collector].positions;
  positions.resize(batch.samples.size());
  for (size_t i = 0; i < batch.samples.size(); ++i) {
    const Sample& sample = batch.samples[i];
    Position& at = positions[i];
    if (!sample.series) {
      at = nullptr;  // its previous series is let go after this batch
      continue;
    }
    bool first = false;
    if (at == nullptr || at->object != sample.series) {
      const uint64_t id = sample.series->id;
      at = byId_.find(id);
      first = at == nullptr;
      if (first) {
        at = &byId_.insert(id, [id](SeenSeries& e) {
          e.id = id;
          e.used = true;
        });  // pool entries do not move
      }
      at->object = sample.series;
    }
    SeenSeries& seen = *at;
    seen.collector = collector;
    seen.epoch = epoch;
    if (!first) {
      if (seen.tracked == nullptr) continue;  // not an input of any rule
      Tracked& s = *seen.tracked;
      s.collector = collector;
      s.seenEpoch = epoch;
      update(s, t, sample.value);
      continue;
    }
    // First sight of this series object: find (or create) what it feeds, once.
    auto fam = inputFamilyOf(sample.series->family);
    if (!fam) continue;
    if (!plan_.judgeManagement && management_.excludes(*sample.series)) continue;  // no rule's input
    const auto& def = inputFamily(*fam);
    std::string_view l[4];
    for (size_t k = 0; k < 4; ++k) {
      if (!def.keyLabels[k].empty()) l[k] = sample.series->label(def.keyLabels[k]);
    }
    double saturatesAt = 0;
    if (!wanted(*fam, l[2], &saturatesAt)) continue;
    const KeyParts key = keyOf(*fam, l[0], l[1], l[2], l[3]);
    Tracked* found = lookup(key);
    const bool inserted = found == nullptr;
    Tracked& s = inserted ? insert(key) : *found;
    if (inserted) {
      s.fam = *fam;
      // The families' maxima are 2^bits - 1 for bits <= 32 (input_families.cpp): exact as an integer.
      s.saturatesAt = static_cast<uint32_t>(saturatesAt);
      if (def.counter()) {
        s.counter = std::make_unique<RateJudgement>();
        newCounters_ = true;  // its refresh is its group's, given at the next learnRefresh
        s.counter->group = groupOf(*sample.series, collectors_[collector].name);
      }
      shape(s);
      indexDirty_ = true;
    }
    if (s.series.get() != sample.series) {
      // Labels beyond the key may change. The subjects hold a view of one of them (a port's
      // link_layer, Subjects::build): that family's change rebuilds them.
      s.series = batch.seriesAt(i);
      if (s.fam == Fam::kPortInfo) indexDirty_ = true;
    }
    s.collector = collector;
    s.seenEpoch = epoch;
    seen.tracked = &s;  // pool slots never move: the pointer stays valid until erased
    update(s, t, sample.value);
  }
  // A series its collector could not read this run is unknown, not gone: its history, and the
  // findings it holds up, stay as they were (no new sample is no new evaluation) until it is read
  // again, its collector stops reporting it, or its latest sample is kUnreadHold old (a read that
  // never works again must not freeze a finding for good). Only series seen before can be held.
  for (const SeriesPtr& series : batch.unread) {
    SeenSeries* seen = series ? byId_.find(series->id) : nullptr;
    if (seen == nullptr) continue;
    // Let go: neither its id nor its Tracked is marked seen, so both are forgotten together.
    if (seen->tracked != nullptr && seen->tracked->t != kNever && t - seen->tracked->t > kUnreadHold) continue;
    seen->collector = collector;
    seen->epoch = epoch;
    if (seen->tracked == nullptr) continue;  // not an input of any rule
    seen->tracked->collector = collector;
    seen->tracked->seenEpoch = epoch;
  }
  for (const Note& note : batch.notes) {
    if (!note.series) continue;
    const SeenSeries* seen = byId_.find(note.series->id);
    if (seen == nullptr || seen->tracked == nullptr) continue;  // not a rule's input
    auto& text = seen->tracked->noteText;
    if (!text) text = std::make_unique<std::string>();
    if (*text != note.text) *text = note.text;
  }
}

// Ids of series objects no longer reported (their collector published without them, or left the
// snapshot). Every id that fed an erased Tracked is among them: a Tracked is erased only when no
// series fed it in its collector's latest batch. Run whenever a Tracked was erased (no dangling
// pointer survives the pass), and now and then for ids that fed nothing (a re-created device's
// old series objects).
void History::forgetStaleIds(const std::vector<uint16_t>& fresh) {
  byId_.eraseIf([&](const SeenSeries& e) {
    const auto& c = collectors_[e.collector];
    return !c.present || (std::find(fresh.begin(), fresh.end(), e.collector) != fresh.end() && e.epoch != c.epoch);
  });
  forgetPositions();
  passesSinceIdSweep_ = 0;
}

void History::forgetPositions() {
  for (auto& c : collectors_) c.positions.clear();
}

void History::update(Tracked& s, Nanos t, double v) {
  if (s.samples > 0 && t <= s.t) return;  // not newer: a rate needs time to pass
  if (s.samples == 0) {
    s.raw = v;
    s.total = s.prevTotal = 0;
    s.t = s.changedT = t;
    s.samples = 1;
    s.saturated = s.saturatesAt > 0 && v >= s.saturatesAt;
    if (s.ring) s.ring.push(t, 0, cohortFor(s.collector, s.ring.width()));
    return;
  }
  s.prevT = s.t;
  s.prevTotal = s.total;
  if (s.counter) {
    double delta;
    const bool reset = v < s.raw;
    if (reset) {
      delta = v;  // a counter that goes down was reset: it counted up from 0 since
      s.counter->carry = 0;
    } else if (s.saturatesAt > 0 && v >= s.saturatesAt && s.raw >= s.saturatesAt) {
      delta = 0;  // stuck at its maximum: it saturates, it does not wrap; the true rate is unknown
    } else {
      delta = v - s.raw;
    }
    s.saturated = s.saturatesAt > 0 && v >= s.saturatesAt;
    s.total += delta;
    if (delta > 0) s.lastIncreaseT = t;
    judgeRate(s, *s.counter, t, delta, v != s.raw, reset);
  } else if (v != s.raw) {
    s.changedT = t;
  }
  s.raw = v;
  s.t = t;
  ++s.samples;
  if (s.ring) s.ring.push(t, s.total, cohortFor(s.collector, s.ring.width()));
}

// The rate of a counter over the interval its latest increase really covers.
//  - A source that refreshes at least as often as we poll: the poll interval.
//  - A source that refreshes slower (its counters stand still between refreshes): only a sample
//    that sees a new value says anything. Its increase is what the NIC counted during one refresh
//    period (or the poll interval, when that is longer), however many polls saw nothing before it.
//    A counter that stood still for two refresh periods has really stopped: rate 0.
//  - An increase above the physical maximum (a priority paused more than 1 s per second) is not a
//    reset and not garbage: the NIC latched late, and the excess is carried into the next interval.
void History::judgeRate(Tracked& s, RateJudgement& j, Nanos t, double delta, bool changed, bool reset) {
  const auto& def = inputFamily(s.fam);
  const Nanos changedBefore = j.lastChangeT;
  if (changed) {
    if (j.lastChangeT != kNever) {
      j.addGap(static_cast<float>(double(t - j.lastChangeT) / kSecond));
    }
    j.lastChangeT = t;
  }
  const Nanos dt = t - s.prevT;
  // Compared with the usual poll interval, not this one: one late or early poll says nothing
  // about the NIC.
  j.poll = j.poll == 0 ? dt : (7 * j.poll + dt) / 8;
  const bool latched = j.refresh * kLatchedDen >= j.poll * kLatchedNum;
  Nanos span = dt;
  if (latched && changed) {
    span = std::max(dt, j.refresh);
  } else if (latched && !(j.lastChangeT != kNever && t - j.lastChangeT >= 2 * j.refresh)) {
    return;  // the NIC has not refreshed since the last judgement: nothing new to judge
  }
  double increase = delta + j.carry;
  const double seconds = double(span) / kSecond;
  // A carried increase was counted before this span began: whatever else is judged alongside it
  // (did the paused side move?) must look back to where it came from.
  // A latched source's new value is what the NIC counted since the sample that showed its previous
  // value: another series of the same read that moved at that sample moved before this span.
  Nanos from = t - span;
  if (latched && changed && changedBefore != kNever) from = std::max(from, changedBefore);
  if (j.carry > 0) from = j.carryFromT;
  j.carry = 0;
  if (def.maxPerSecond > 0) {
    const double cap = def.maxPerSecond * seconds;
    // A counter that restarted from 0 and already reads more than could happen since: it restarted
    // from some other value (a firmware reload), and what happened in this interval is unknown.
    if (reset && increase > cap) return;
    if (increase > cap) {
      // At most one refresh period's worth can be late; more than that is not batching.
      const double carryCap = def.maxPerSecond * double(std::max(j.refresh, dt)) / kSecond;
      j.carry = std::min(increase - cap, carryCap);
      j.carryFromT = from;
      increase = cap;
    }
  }
  j.prevRateIncrease = j.rateIncrease;
  j.prevRateSeconds = j.rateSeconds;
  j.prevRateFromT = j.rateFromT;
  j.rateIncrease = increase;
  j.rateSeconds = seconds;
  j.rateT = t;
  j.rateFromT = from;
  // Until the source's cadence is known a batched jump may still read as a short burst: the peak
  // gauges wait for it (a few polls after start) rather than show a peak that never happened.
  if (j.peak) j.peak->buckets.addRate(t, s.total, kSecond, def.maxPerSecond, j.refresh > 0);
}

uint32_t History::groupOf(const Series& series, std::string_view collector) {
  std::string_view interface = series.label("interface"), device = series.label("device"),
                   port = series.label("port");
  const KeyParts key{0, {collector, interface, device, port}, 4};
  auto it = groupIds_.find(key);
  if (it == groupIds_.end()) {
    key.appendTo(scratch_);
    it = groupIds_.try_emplace(scratch_, static_cast<uint32_t>(groups_.size())).first;
    Group g;
    g.gauge = makeSeries(kRefreshFamily, {{"collector", std::string(collector)},
                                          {"device", std::string(device)},
                                          {"port", std::string(port)},
                                          {"interface", std::string(interface)}});
    groups_.push_back(std::move(g));
  }
  return it->second;
}

// A source's refresh period is how often its fastest-moving counter changes: one counter that is
// idle, or moves only now and then (an error counter), must not make the whole source look slow.
void History::learnRefresh() {
  for (auto& g : groups_) {
    g.refresh = 0;
    g.live = false;
  }
  size_t live = 0;
  for (size_t f = 0; f < kFamCount; ++f) {
    if (byFamily_[f].empty() || !inputFamily(static_cast<Fam>(f)).counter()) continue;
    for (const Tracked* s : byFamily_[f]) {
      const RateJudgement& j = *s->counter;
      Group& g = groups_[j.group];
      live += g.live ? 0 : 1;
      g.live = true;
      if (j.gapCount < 2) continue;
      const Nanos own = j.ownRefresh();
      if (g.refresh == 0 || own < g.refresh) g.refresh = own;
    }
  }
  // Each member gets its group's refresh; when no group's changed and no counter is new, every
  // member already holds it (the common pass: a second walk over every counter saved).
  bool moved = newCounters_;
  for (auto& g : groups_) {
    moved = moved || g.refresh != g.assigned;
    g.assigned = g.refresh;
  }
  if (moved) {
    for (size_t f = 0; f < kFamCount; ++f) {
      if (byFamily_[f].empty() || !inputFamily(static_cast<Fam>(f)).counter()) continue;
      for (Tracked* s : byFamily_[f]) s->counter->refresh = groups_[s->counter->group].refresh;
    }
  }
  newCounters_ = false;
  // Devices that come and go under new names (VFs, re-created devices) leave groups behind: drop
  // them once they outnumber the live ones, so memory follows the node, not its history.
  if (groups_.size() > 2 * live + 64) compactGroups();
}

void History::compactGroups() {
  std::vector<uint32_t> remap(groups_.size(), UINT32_MAX);
  std::vector<Group> kept;
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (!groups_[i].live) continue;
    remap[i] = static_cast<uint32_t>(kept.size());
    kept.push_back(std::move(groups_[i]));
  }
  for (auto it = groupIds_.begin(); it != groupIds_.end();) {
    if (remap[it->second] == UINT32_MAX) {
      it = groupIds_.erase(it);
    } else {
      it->second = remap[it->second];
      ++it;
    }
  }
  forEachTracked([&remap](Tracked& s) {
    if (s.counter) s.counter->group = remap[s.counter->group];
  });
  groups_ = std::move(kept);
}

std::span<Tracked* const> History::family(Fam fam) const { return byFamily_[static_cast<size_t>(fam)]; }

const Tracked* History::find(Fam fam, std::string_view a, std::string_view b, std::string_view c,
                             std::string_view d) const {
  return lookup(keyOf(fam, a, b, c, d));
}

}  // namespace fabricmon::watchdog
