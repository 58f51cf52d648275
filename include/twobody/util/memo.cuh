/// \file memo.cuh
/// \brief Host-side answers that do not change while a process runs (plans, occupancy),
/// computed once per key and kept in a bounded, thread-safe table: the one-call forms ask for
/// them on every call, and asking CUDA or the cost model again costs microseconds.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace twobody::detail {

/// The bytes of trivially copyable values, one after the other: a memo key.
template <class... V>
std::string key_bytes(V const&... v)
{
  static_assert((std::is_trivially_copyable_v<V> && ...), "key_bytes: keys are made of plain values");
  std::string key;
  (key.append(reinterpret_cast<char const*>(&v), sizeof(v)), ...);
  return key;
}

/// Values by key, each made once by the first get() that misses. Past `bound` entries the
/// table starts afresh (a process asking for very many distinct keys pays the misses again).
template <class Value>
class memo {
 public:
  explicit memo(std::size_t bound = 4096) : bound_(bound) {}

  template <class Make>
  Value get(std::string const& key, Make&& make)
  {
    {
      std::lock_guard<std::mutex> lock(m_);
      auto const hit = table_.find(key);
      if (hit != table_.end()) { return hit->second; }
    }
    Value value = make();  // outside the lock: make() may take a while, or ask another memo
    std::lock_guard<std::mutex> lock(m_);
    if (table_.size() >= bound_) { table_.clear(); }
    table_.emplace(key, value);
    return value;
  }

  std::size_t size() const
  {
    std::lock_guard<std::mutex> lock(m_);
    return table_.size();
  }

 private:
  mutable std::mutex m_;
  std::unordered_map<std::string, Value> table_;
  std::size_t bound_;
};

}  // namespace twobody::detail
