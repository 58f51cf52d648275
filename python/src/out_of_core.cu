// The options of out-of-core runs (twobody/host/out_of_core.cuh): host point sets of any size,
// block pair by block pair on one GPU or several, with progress and Ctrl-C. The statistics
// themselves live beside their in-core forms (counts.cu, histogram_run.cuh), whose kernels
// they share.
#include "statistics.cuh"

namespace twobody_py {

twobody::host::scale_options scale_options_of(array const& a, std::optional<array> const& b, long long memory_budget,
                                              std::optional<std::vector<int>> const& devices, long long block_points,
                                              nb::object const& progress)
{
  if (memory_of(a, "points") != memory::host || (b && memory_of(*b, "points_b") != memory::host)) {
    throw nb::value_error("twobody: out-of-core runs (memory_budget= or devices=) read host memory: pass NumPy arrays");
  }
  if (!gpu_usable()) {
    throw twobody::error("twobody: out-of-core runs (memory_budget= or devices=) need a CUDA GPU, and this process has "
                         "none usable (" + twobody::detail::current_gpu_status().reason + ")");
  }
  if (memory_budget < 0) { throw nb::value_error("twobody: memory_budget must be >= 0 bytes (0: a quarter of free memory)"); }
  if (block_points < 0) { throw nb::value_error("twobody: block_points must be >= 0 (0: chosen from the budget)"); }
  twobody::host::scale_options opt;
  opt.device_memory_budget = static_cast<std::size_t>(memory_budget);
  opt.block_points         = static_cast<twobody::size_type>(block_points);
  if (devices) {
    int count = 0;
    TWOBODY_CUDA_TRY(cudaGetDeviceCount(&count));
    opt.devices = devices->empty() ? twobody::host::all_devices() : *devices;
    for (int d : opt.devices) {
      if (d < 0 || d >= count) {
        throw nb::value_error(("twobody: device " + std::to_string(d) + " does not exist (this process sees " +
                               std::to_string(count) + ")").c_str());
      }
    }
  }
  if (!progress.is_none()) {  // after each block pair; an exception stops every worker
    nb::handle fn = progress;
    opt.progress  = [fn](twobody::host::scale_progress const& p) {
      report_progress(fn, static_cast<long long>(p.block_pairs_done), static_cast<long long>(p.block_pairs_total));
    };
  }
  return opt;
}

}  // namespace twobody_py
