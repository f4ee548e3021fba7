#pragma once
// The rendered /metrics body of one snapshot, built at most once and only when a scrape asks for
// it, then shared by every scrape of that snapshot (docs/architecture.md, "One render per
// snapshot"): scrape cost does not grow with the number of scrapers, and polling with nobody
// scraping costs no rendering at all.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/sample.hpp"

namespace fabricmon {

namespace detail {
struct LazyGzip;
}  // namespace detail

/// Prometheus text of one snapshot; its gzip is compressed on first demand, once.
class Payload {
 public:
  Payload(std::string text, uint64_t generation);
  ~Payload();
  Payload(Payload&&) noexcept;
  Payload& operator=(Payload&&) noexcept;

  std::string text;     ///< Prometheus text format 0.0.4
  uint64_t generation;  ///< snapshot generation the text was rendered from

  /// `text` compressed in gzip format (RFC 1952), compressed by the first caller; concurrent callers
  /// wait for that one compression. "" if zlib failed (serve the text then).
  const std::string& gzip() const;
  /// Whether gzip() has been computed (tests: nobody asked for gzip, nothing was compressed).
  bool gzipReady() const;

 private:
  std::unique_ptr<detail::LazyGzip> gzip_;
};

/// Kept for callers that want a payload from text they already have; the gzip is still lazy.
Payload makePayload(std::string text, uint64_t generation);

/// The gzip (RFC 1952) encoding of `data`, or "" if zlib fails.
std::string gzipCompress(std::string_view data);

/// The latest published snapshot (an immutable set of batches and a generation) and, once a reader
/// asked for it, its rendered payload. publish() is a pointer swap and never renders, so the
/// sampling threads never wait for a render; payload() renders on the caller's thread (an HTTP
/// thread or the textfile writer), once per generation: concurrent callers of one generation wait
/// for that render and get the same bytes.
class LazyExposition {
 public:
  using Render = std::function<std::string(std::span<const BatchPtr>)>;

  explicit LazyExposition(Render render);

  /// Replaces the snapshot; cheap, never blocks on a render in progress.
  void publish(std::vector<BatchPtr> batches, uint64_t generation);
  /// The payload of the latest snapshot, rendering it if nobody has yet; nullptr before the first
  /// publish. A render that throws leaves the snapshot unrendered for the next caller.
  std::shared_ptr<const Payload> payload() const;
  /// Generation of the latest published snapshot (0 = none yet).
  uint64_t generation() const;
  /// Renders done so far (tests and benchmarks: cost follows scrapes).
  uint64_t renders() const { return renders_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    std::vector<BatchPtr> batches;
    uint64_t generation = 0;
    // Held for the render: concurrent readers of one generation wait for the first one's and get
    // its payload. A mutex, not std::call_once: a render that throws must leave the snapshot to
    // the next reader, and a callable throwing through call_once is retried only where
    // pthread_once unwinds (glibc; not ThreadSanitizer's interceptor, where the next reader hangs).
    std::mutex renderMutex;
    std::shared_ptr<const Payload> payload;  ///< set under renderMutex
  };

  Render render_;
  std::atomic<std::shared_ptr<Entry>> current_;
  mutable std::atomic<uint64_t> renders_{0};
};

}  // namespace fabricmon
