#pragma once
// Asio's and Beast's OpenSSL streams, after the one Asio include wrapper (model/asio.hpp).
// Only the exporters' .cpp files include this, so OpenSSL headers stay out of everyone else's build.
#include "model/asio.hpp"

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
