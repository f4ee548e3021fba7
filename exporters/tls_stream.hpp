#pragma once
// A TlsConnection (exporters/tls_module.hpp) as the AsyncStream Beast's http::async_read and
// http::async_write take, so the HTTP session is compiled once in the daemon for either stream
// while every OpenSSL call stays in fabricmon-tls.so.

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "exporters/tls_module.hpp"

namespace fabricmon {

class TlsStream {
 public:
  using executor_type = boost::beast::tcp_stream::executor_type;
  using next_layer_type = boost::beast::tcp_stream;

  explicit TlsStream(std::unique_ptr<TlsConnection> connection) : connection_(std::move(connection)) {}

  executor_type get_executor() { return connection_->tcp().get_executor(); }
  /// For beast::get_lowest_layer: the TCP stream whose deadline bounds every operation.
  next_layer_type& next_layer() { return connection_->tcp(); }

  template <typename Handler>
  auto async_handshake(Handler&& handler) {
    return boost::asio::async_initiate<Handler, void(boost::system::error_code)>(
        [this](auto&& h) { connection_->asyncHandshake(complete(std::move(h))); }, handler);
  }

  template <typename Handler>
  auto async_shutdown(Handler&& handler) {
    return boost::asio::async_initiate<Handler, void(boost::system::error_code)>(
        [this](auto&& h) { connection_->asyncShutdown(complete(std::move(h))); }, handler);
  }

  // Read into the first non-empty buffer, as Asio's own ssl::stream does with a sequence.
  template <typename MutableBufferSequence, typename Handler>
  auto async_read_some(const MutableBufferSequence& buffers, Handler&& handler) {
    boost::asio::mutable_buffer first;
    for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers); ++it) {
      first = *it;
      if (first.size() != 0) break;
    }
    return boost::asio::async_initiate<Handler, void(boost::system::error_code, std::size_t)>(
        [this](auto&& h, boost::asio::mutable_buffer b) { connection_->asyncReadSome(b, complete(std::move(h))); },
        handler, first);
  }

  template <typename ConstBufferSequence, typename Handler>
  auto async_write_some(const ConstBufferSequence& buffers, Handler&& handler) {
    std::vector<boost::asio::const_buffer> copy(boost::asio::buffer_sequence_begin(buffers),
                                                boost::asio::buffer_sequence_end(buffers));
    return boost::asio::async_initiate<Handler, void(boost::system::error_code, std::size_t)>(
        [this](auto&& h, std::vector<boost::asio::const_buffer> b) {
          connection_->asyncWriteSome(std::move(b), complete(std::move(h)));
        },
        handler, std::move(copy));
  }

 private:
  // The module's completions run on the TCP stream's executor; the handler is dispatched to its own
  // associated executor from there (the same strand in this server, so it runs at once). A
  // std::function must be copyable and Beast's operations are move-only, so the handler is held
  // by a shared pointer and moved out once.
  template <typename Handler>
  auto complete(Handler&& handler) {
    using H = std::decay_t<Handler>;
    auto held = std::make_shared<H>(std::forward<Handler>(handler));
    auto executor = boost::asio::get_associated_executor(*held, get_executor());
    return [held = std::move(held), executor](auto... result) {
      boost::asio::dispatch(executor, boost::beast::bind_handler(std::move(*held), result...));
    };
  }

  std::unique_ptr<TlsConnection> connection_;
};

}  // namespace fabricmon
