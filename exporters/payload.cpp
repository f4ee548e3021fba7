#include "exporters/payload.hpp"

#include <malloc.h>

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <mutex>
#include <string_view>
#include <utility>

namespace fabricmon {
namespace {

// windowBits 15 + 16 selects the gzip wrapper instead of zlib's (zlib.h, deflateInit2).
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemLevel = 8;
// zlib's fastest level: a scrape's exposition is label text repeated with small changes, which
// level 1 already shrinks ~20:1, at a quarter of the default level's CPU (the 128-device
// exposition, 2.7 MB: 6 ms and 135 KB at level 1, 23 ms and 116 KB at level 6; docs/benchmarks.md,
// "Tenth pass"). The scrape waits for it, and it runs at every scrape.
constexpr int kGzipLevel = Z_BEST_SPEED;
// First size of the gzip output buffer; it grows by half as deflate fills it.
constexpr size_t kGzipFirstChunk = 16 * 1024;

}  // namespace

namespace detail {
struct LazyGzip {
  std::mutex mutex;  // held for the compression; a mutex for the reason of LazyExposition::Entry's
  std::atomic<bool> ready{false};
  std::string bytes;
};
}  // namespace detail

std::string gzipCompress(std::string_view data) {
  // One deflate call takes at most UINT_MAX input bytes; a /metrics body is a few MB at most.
  if (data.size() > UINT_MAX) return {};
  z_stream zs{};
  if (deflateInit2(&zs, kGzipLevel, Z_DEFLATED, kGzipWindowBits, kMemLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return {};
  }
  // The output grows as deflate produces it instead of starting at deflateBound (which is the
  // input's size and more): an exposition compresses ~8:1, so holding a text-sized buffer beside
  // the text doubled the render's peak (2.2 MiB more at 128 devices).
  std::string out;
  out.resize(std::max<size_t>(kGzipFirstChunk, data.size() / 8));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (zs.total_out == out.size()) out.resize(out.size() + out.size() / 2);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + zs.total_out);
    zs.avail_out = static_cast<uInt>(out.size() - zs.total_out);
    rc = deflate(&zs, Z_FINISH);
  }
  const size_t produced = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return {};
  out.resize(produced);
  return out;
}

Payload::Payload(std::string t, uint64_t g)
    : text(std::move(t)), generation(g), gzip_(std::make_unique<detail::LazyGzip>()) {}
Payload::~Payload() = default;
Payload::Payload(Payload&&) noexcept = default;
Payload& Payload::operator=(Payload&&) noexcept = default;

const std::string& Payload::gzip() const {
  if (gzip_->ready.load(std::memory_order_acquire)) return gzip_->bytes;
  std::lock_guard lock(gzip_->mutex);
  if (!gzip_->ready.load(std::memory_order_relaxed)) {
    gzip_->bytes = gzipCompress(text);
    gzip_->ready.store(true, std::memory_order_release);
  }
  return gzip_->bytes;
}

bool Payload::gzipReady() const { return gzip_->ready.load(std::memory_order_acquire); }

Payload makePayload(std::string text, uint64_t generation) { return Payload(std::move(text), generation); }

LazyExposition::LazyExposition(Render render) : render_(std::move(render)) {}

void LazyExposition::publish(std::vector<BatchPtr> batches, uint64_t generation) {
  auto entry = std::make_shared<Entry>();
  entry->batches = std::move(batches);
  entry->generation = generation;
  current_.store(std::move(entry), std::memory_order_release);
}

std::shared_ptr<const Payload> LazyExposition::payload() const {
  const std::shared_ptr<Entry> entry = current_.load(std::memory_order_acquire);
  if (!entry) return nullptr;
  std::lock_guard lock(entry->renderMutex);
  if (entry->payload == nullptr) {
    auto rendered = std::make_shared<const Payload>(render_(entry->batches), entry->generation);
    renders_.fetch_add(1, std::memory_order_relaxed);
    entry->payload = std::move(rendered);
    // The render's temporaries (the dedupe set, the groups, the text's growth) are megabytes at
    // 128 ports, freed into this HTTP thread's malloc arena, where glibc keeps them; give the free
    // pages back once per render (docs/benchmarks.md, "Memory per component").
    ::malloc_trim(0);
  }
  return entry->payload;
}

uint64_t LazyExposition::generation() const {
  const std::shared_ptr<Entry> entry = current_.load(std::memory_order_acquire);
  return entry ? entry->generation : 0;
}

}  // namespace fabricmon
