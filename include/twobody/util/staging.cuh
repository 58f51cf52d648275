#pragma once

#include <twobody/points.cuh>
#include <twobody/util/device_buffer.cuh>
#include <twobody/util/error.cuh>

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace twobody::detail {

/// True when `p` points to memory a kernel can read (device, managed, or registered host).
inline bool device_accessible(void const* p)
{
  if (p == nullptr) { return false; }
  cudaPointerAttributes attr{};
  TWOBODY_CUDA_TRY(cudaPointerGetAttributes(&attr, p));
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ||
         (attr.type == cudaMemoryTypeHost && attr.devicePointer != nullptr);
}

/// Throws twobody::error naming `what` when a caller's output or scratch pointer is not memory
/// a kernel can write (the explicit forms check the pointers they are given).
inline void require_device_pointer(void const* p, char const* what)
{
  TWOBODY_EXPECTS(device_accessible(p), (std::string(what) + " must be device-accessible memory (cudaMalloc, "
                                         "cudaMallocAsync, managed or pinned), not a host pointer; the host-result "
                                         "form returns the result instead")
                                          .c_str());
}

/// A points view the kernels can read: the given one when its arrays are device
/// accessible, otherwise copies of its host arrays in stream-ordered device memory.
template <class Points>
class staged_points {
 public:
  staged_points(Points const& p, cudaStream_t stream) : view_(p)
  {
    using T = typename Points::value_type;
    if (p.size <= 0) { return; }
    std::size_t const bytes = static_cast<std::size_t>(p.size) * sizeof(T);
    auto stage              = [&](T const*& ptr) {
      if (device_accessible(ptr)) { return; }
      buffers_.emplace_back(bytes, stream);
      TWOBODY_CUDA_TRY(cudaMemcpyAsync(buffers_.back().data(), ptr, bytes, cudaMemcpyHostToDevice, stream));
      ptr = buffers_.back().template as<T>();
    };
    for (auto& c : view_.coords) { stage(c); }
    if constexpr (Points::weighted) { stage(view_.weights); }
  }
  Points const& view() const { return view_; }
  bool copied() const { return !buffers_.empty(); }

 private:
  Points view_;
  std::vector<device_buffer> buffers_;
};

/// Both sides of a pair set made readable by kernels (B staged only in cross mode: in self
/// and ordered mode it is A). `pairs()` is the set over the staged views.
template <class Points>
class staged_pairs {
 public:
  staged_pairs(pair_set<Points> const& p, cudaStream_t stream)
    : mode_(p.mode), a_(p.a, stream), b_(p.mode == pair_mode::cross ? p.b : Points{}, stream)
  {
  }
  pair_set<Points> pairs() const { return {mode_, a_.view(), mode_ == pair_mode::cross ? b_.view() : a_.view()}; }

 private:
  pair_mode mode_;
  staged_points<Points> a_;
  staged_points<Points> b_;
};

/// A non-blocking stream of the library's own (copies that overlap the caller's kernels),
/// synchronized and destroyed with its owner.
struct owned_stream {
  cudaStream_t s = nullptr;
  owned_stream() { TWOBODY_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  owned_stream(owned_stream const&) = delete;
  ~owned_stream()
  {
    (void)cudaStreamSynchronize(s);
    (void)cudaStreamDestroy(s);
  }
};

}  // namespace twobody::detail
