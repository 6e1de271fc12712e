#pragma once
/// Boost.Iostreams' gzip filters and filtering streams, for every file that compresses: included
/// through here so that the one workaround they need lives in one place. g++ 12 reports a false
/// -Wrestrict inside Boost's gzip compressor (GCC bug 105329); clang has no such warning and
/// would warn of the unknown name, hence the guard.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
