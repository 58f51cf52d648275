/// \file runtime_compile.cuh
/// \brief Host helpers of run-time compilation (runtime_program.cuh): the disk cache's key
/// (FNV-1a over the source and the library's headers), identifier checks, numbered source for
/// compile errors, and TWOBODY_NVRTC_TRY, which turns a failed NVRTC call into an exception.
#pragma once

#include <twobody/util/error.cuh>
#include <twobody/util/nvrtc_entry_points.cuh>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace twobody {
namespace detail {

inline std::string env_or(char const* name, std::string fallback)
{
  char const* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : std::move(fallback);
}

/// FNV-1a, 64 bits: a stable key for the disk cache (std::hash may differ between builds).
inline std::uint64_t fnv1a(std::string const& s, std::uint64_t h = 1469598103934665603ull)
{
  for (unsigned char c : s) { h = (h ^ c) * 1099511628211ull; }
  return h;
}

/// A hash of every library header under `include_dir`/twobody, read once per directory: a cached
/// kernel built from other headers must not be reused (its parameter layout may differ).
inline std::uint64_t headers_hash(std::string const& include_dir)
{
  static std::mutex m;
  static std::map<std::string, std::uint64_t> known;
  std::lock_guard<std::mutex> lock(m);
  auto const hit = known.find(include_dir);
  if (hit != known.end()) { return hit->second; }
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(fs::path(include_dir) / "twobody", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file()) { files.push_back(it->path()); }
  }
  std::sort(files.begin(), files.end());
  std::uint64_t h = fnv1a(include_dir);
  for (auto const& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    h = fnv1a(f.filename().string() + text.str(), h);
  }
  known.emplace(include_dir, h);
  return h;
}

inline std::string hex(std::uint64_t v)
{
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

inline bool is_identifier(std::string const& s)
{
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) { return false; }
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

template <class R>
char const* result_name()
{
  if constexpr (std::is_same_v<R, float>) { return "float"; }
  else if constexpr (std::is_same_v<R, double>) { return "double"; }
  else if constexpr (std::is_same_v<R, bool>) { return "bool"; }
  else if constexpr (std::is_same_v<R, int>) { return "int"; }
  else {
    static_assert(std::is_same_v<R, unsigned>, "runtime_functor: R must be float, double, bool, int or unsigned");
    return "unsigned";
  }
}

/// The source with numbered lines (compile errors show it).
inline std::string numbered(std::string const& text)
{
  std::ostringstream out;
  std::istringstream in(text);
  std::string line;
  for (int k = 1; std::getline(in, line); ++k) { out << (k < 10 ? "   " : k < 100 ? "  " : " ") << k << " | " << line << '\n'; }
  return out.str();
}

#define TWOBODY_NVRTC_TRY(call)                                                                            \
  do {                                                                                                     \
    nvrtcResult const twobody_nvrtc_ = (call);                                                             \
    if (twobody_nvrtc_ != NVRTC_SUCCESS) {                                                                 \
      ::twobody::detail::throw_logic_error(                                                                \
        (std::string("NVRTC call `" #call "` failed: ") + ::twobody::detail::nvrtc().error_string(twobody_nvrtc_)).c_str(), __FILE__, \
        __LINE__);                                                                                         \
    }                                                                                                      \
  } while (0)

}  // namespace detail

}  // namespace twobody
