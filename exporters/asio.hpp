#pragma once
// Include Asio and Beast through this header only. Boost 1.74's Asio under GCC 12 in C++20 mode
// fails in awaitable.hpp ("'exchange' is not a member of 'std'") unless <utility> comes first
// (ARCHITECTURE.md, measured on Debian 12).
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
