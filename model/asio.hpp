#pragma once
// Include Asio and Beast through this header only. Boost 1.74's Asio under GCC 12 in C++20 mode
// fails in awaitable.hpp ("'exchange' is not a member of 'std'") unless <utility> comes first
// (measured on Debian 12; docs/architecture.md). It lives in model/, the base every library
// depends on, so the daemon's timers and the exporters' server share the one fix.
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
