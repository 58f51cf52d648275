/// \file runtime_program.cuh
/// \brief Pair functors written as CUDA C++ source and compiled at run time with NVRTC: the
/// program that compiles them, caches the result on disk, and hands the library its kernels.
///
///     twobody::runtime_program prog({"float", "return expf(-dist2(a, b) / (2 * h * h));", {"h"}});
///     auto kernel = prog.functor<float, float, 3>({2.0});  // runtime_functor<float, float, 3>
///     twobody::runtime_program::scope in_scope(prog);       // its kernels serve this thread
///     double s = twobody::reduce_pairs(twobody::exec::gpu, pairs, kernel, cuda::std::plus<double>{}, 0.0);
///
/// The body is the body of `R operator()(point<T, D> const& a, point<T, D> const& b) const`:
/// `a.x[d]`, `T`, `D`, the parameters by name (as `T const`), and the helpers dist2, dist and
/// dot (runtime_functor.cuh) are in scope. The one-call forms that take a runtime functor:
/// reduce_pairs, count_pairs (R = bool), sum_per_point and histogram, on the GPU only. Each
/// pair kernel they pick is compiled on first use, together with the other candidates of the
/// same plan (one NVRTC run, about 1-3 s), for the current GPU's architecture, and cached in
/// memory and on disk (runtime_options::cache_dir), keyed by the source, the options, the GPU
/// architecture, the NVRTC version and the library's headers.
///
/// Needs NVRTC at link time (CMake: CUDA::nvrtc; or when first used, with TWOBODY_NVRTC_DLOPEN:
/// util/nvrtc_entry_points.cuh) and the library's and the CUDA toolkit's
/// headers at run time (runtime_options::include_dirs). A source that does not compile throws
/// twobody::error with the source, numbered, and the compiler's messages. Keep the program alive
/// until the work it launched has finished: its kernels are unloaded with it.
#pragma once

#include <twobody/runtime_functor.cuh>
#include <twobody/util/error.cuh>
#include <twobody/util/nvrtc_entry_points.cuh>
#include <twobody/util/runtime_compile.cuh>
#include <twobody/util/runtime_kernels.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace twobody {

/// The source of a run-time functor.
struct runtime_source {
  std::string result = "float";     ///< C++ result type: "float"/"double" (sums, histograms) or "bool" (counts)
  std::string body;                 ///< statements of operator() (see the file comment)
  std::vector<std::string> params;  ///< parameter names, in order (at most max_runtime_params)
  std::string name = "functor";     ///< the file name the compiler's messages give the body
  std::string preamble;             ///< device code placed before the functor (helper functions)

  runtime_source(std::string result_, std::string body_, std::vector<std::string> params_ = {},
                 std::string name_ = "functor", std::string preamble_ = "")
    : result(std::move(result_)), body(std::move(body_)), params(std::move(params_)), name(std::move(name_)),
      preamble(std::move(preamble_))
  {
  }
};

/// How a runtime_program compiles.
struct runtime_options {
  std::vector<std::string> include_dirs;  ///< empty: default_runtime_include_dirs()
  std::vector<std::string> flags;         ///< extra NVRTC options (e.g. "-use_fast_math")
  std::string cache_dir = "default";      ///< "default": default_runtime_cache_dir(); "": no disk cache
};

/// The include directories a runtime_program uses by default: the library's (TWOBODY_INCLUDE_DIR,
/// else where this header lies), and the CUDA toolkit's (CUDA_HOME or CUDA_PATH, else the
/// toolkit root the program was built with where it defines TWOBODY_CUDA_ROOT, else
/// /usr/local/cuda), with its CCCL directory where it has one.
inline std::vector<std::string> default_runtime_include_dirs()
{
  namespace fs = std::filesystem;
#ifdef TWOBODY_CUDA_ROOT
  char const* const built_with = TWOBODY_CUDA_ROOT;
#else
  char const* const built_with = "/usr/local/cuda";
#endif
  std::string const here = fs::path(__FILE__).parent_path().parent_path().string();
  std::vector<std::string> dirs{detail::env_or("TWOBODY_INCLUDE_DIR", here)};
  std::string const cuda = detail::env_or("CUDA_HOME", detail::env_or("CUDA_PATH", built_with));
  for (char const* sub : {"include/cccl", "include"}) {
    fs::path const p = fs::path(cuda) / sub;
    if (fs::exists(p)) { dirs.push_back(p.string()); }
  }
  return dirs;
}

/// The disk cache's default directory: TWOBODY_CACHE_DIR, else $XDG_CACHE_HOME/twobody, else
/// ~/.cache/twobody ("" where none of them is set).
inline std::string default_runtime_cache_dir()
{
  std::string const own = detail::env_or("TWOBODY_CACHE_DIR", "");
  if (!own.empty()) { return own; }
  std::string const xdg = detail::env_or("XDG_CACHE_HOME", "");
  if (!xdg.empty()) { return xdg + "/twobody"; }
  std::string const home = detail::env_or("HOME", "");
  return home.empty() ? std::string() : home + "/.cache/twobody";
}

/// A run-time functor's source, compiled into the pair kernels the library asks for.
class runtime_program final : public detail::runtime_kernel_source {
 public:
  explicit runtime_program(runtime_source source, runtime_options options = {})
    : source_(std::move(source)), options_(std::move(options)), id_(next_id())
  {
    TWOBODY_EXPECTS(source_.result == "float" || source_.result == "double" || source_.result == "bool" ||
                      source_.result == "int" || source_.result == "unsigned",
                    ("runtime_source: the result type must be float, double, bool, int or unsigned, not '" +
                     source_.result + "'")
                      .c_str());
    TWOBODY_EXPECTS(source_.params.size() <= static_cast<std::size_t>(max_runtime_params),
                    "runtime_source: at most 16 parameters");
    for (auto const& p : source_.params) {
      TWOBODY_EXPECTS(detail::is_identifier(p), ("runtime_source: parameter name '" + p + "' is not a C++ identifier").c_str());
      TWOBODY_EXPECTS(p != "a" && p != "b" && p != "T" && p != "D" && p != "params",
                      ("runtime_source: parameter name '" + p + "' is taken (a, b, T, D, params)").c_str());
    }
    TWOBODY_EXPECTS(detail::is_identifier(source_.name), "runtime_source: the name must be a C++ identifier");
    if (options_.include_dirs.empty()) { options_.include_dirs = default_runtime_include_dirs(); }
    if (options_.cache_dir == "default") { options_.cache_dir = default_runtime_cache_dir(); }
  }

  runtime_program(runtime_program const&)            = delete;
  runtime_program& operator=(runtime_program const&) = delete;

  ~runtime_program() override
  {
    for (cudaLibrary_t lib : libraries_) { (void)cudaLibraryUnload(lib); }
  }

  runtime_source const& source() const { return source_; }
  runtime_options const& options() const { return options_; }

  /// The functor with parameter values `values` (one per name of source().params, in order,
  /// converted to T). R must be the source's result type.
  template <class R, class T, int D>
  runtime_functor<R, T, D> functor(std::vector<double> const& values = {}) const
  {
    TWOBODY_EXPECTS(source_.result == detail::result_name<R>(),
                    ("runtime_program::functor: the source returns " + source_.result + ", not " +
                     detail::result_name<R>())
                      .c_str());
    TWOBODY_EXPECTS(values.size() == source_.params.size(),
                    ("runtime_program::functor: the source has " + std::to_string(source_.params.size()) +
                     " parameters, but " + std::to_string(values.size()) + " values were given")
                      .c_str());
    runtime_functor<R, T, D> f{};
    for (std::size_t k = 0; k < values.size(); ++k) { f.params[k] = static_cast<T>(values[k]); }
    f.program = static_cast<detail::runtime_kernel_source const*>(this);
    return f;
  }

  /// Makes `program`'s kernels the ones this thread's runtime functors run with, while it lives.
  class scope {
   public:
    explicit scope(runtime_program& program) : previous_(detail::active_runtime_source())
    {
      detail::active_runtime_source() = &program;
    }
    scope(scope const&)            = delete;
    scope& operator=(scope const&) = delete;
    ~scope() { detail::active_runtime_source() = previous_; }

   private:
    detail::runtime_kernel_source* previous_;
  };

  /// Compiles the functor alone for `value_type` ("float" or "double") and D = `dims`, for
  /// compute capability `arch` (e.g. 90), and throws twobody::error where it does not compile.
  /// Needs no GPU: a way to check a source before any data is ready.
  /// `kernels` (C++ names of pair kernel instantiations) are compiled too, when given.
  void check(std::string const& value_type = "float", int dims = 3, int arch = 90,
             std::vector<std::string> const& kernels = {}) const
  {
    (void)compile(value_type, dims, kernels, arch);
  }

  /// The source NVRTC compiles for the functor's T and D, and the kernels `names`.
  std::string program_text(std::string const& value_type, int dims) const
  {
    std::ostringstream s;
    std::string const F = "runtime_functor<" + source_.result + ", " + value_type + ", " + std::to_string(dims) + ">";
    s << "#include <twobody/detail/runtime_device.cuh>\n";
    if (!source_.preamble.empty()) { s << "#line 1 \"" << source_.name << "_preamble\"\n" << source_.preamble << "\n"; }
    s << "namespace twobody {\ntemplate <>\n__host__ __device__ " << source_.result << " " << F
      << "::operator()(point<" << value_type << ", " << dims << "> const& a, point<" << value_type << ", " << dims
      << "> const& b) const\n{\n  using T = " << value_type << ";\n  constexpr int D = " << dims << ";\n";
    for (std::size_t k = 0; k < source_.params.size(); ++k) {
      s << "  T const " << source_.params[k] << " = params[" << k << "];\n";
    }
    s << "#line 1 \"" << source_.name << "\"\n" << source_.body << "\n}\n}  // namespace twobody\n";
    return s.str();
  }

  // runtime_kernel_source
  void announce(detail::runtime_kernel_request const& r) override
  {
    std::lock_guard<std::mutex> lock(m_);
    if (kernels_.count(r.kernel) == 0) { pending_[{r.value_type, r.dims}].push_back(r.kernel); }
  }

  void const* kernel(detail::runtime_kernel_request const& r) override
  {
    std::lock_guard<std::mutex> lock(m_);
    auto const hit = kernels_.find(r.kernel);
    if (hit != kernels_.end()) { return hit->second; }
    std::vector<std::string> names = std::move(pending_[{r.value_type, r.dims}]);
    pending_.erase({r.value_type, r.dims});
    names.push_back(r.kernel);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    names.erase(std::remove_if(names.begin(), names.end(), [&](std::string const& n) { return kernels_.count(n) > 0; }),
                names.end());
    int dev = 0;
    TWOBODY_CUDA_TRY(cudaGetDevice(&dev));
    int major = 0, minor = 0;
    TWOBODY_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    TWOBODY_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    compiled const c = compile(r.value_type, r.dims, names, major * 10 + minor);
    cudaLibrary_t lib{};
    TWOBODY_CUDA_TRY(cudaLibraryLoadData(&lib, c.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    libraries_.push_back(lib);
    for (std::size_t k = 0; k < names.size(); ++k) {
      cudaKernel_t kernel{};
      TWOBODY_CUDA_TRY(cudaLibraryGetKernel(&kernel, lib, c.lowered[k].c_str()));
      kernels_[names[k]] = reinterpret_cast<void const*>(kernel);
    }
    return kernels_.at(r.kernel);
  }

  unsigned long long id() const override { return id_; }

  /// NVRTC runs of this program so far (disk-cache hits are not runs).
  int compilations() const { return compilations_.load(); }

 private:
  struct compiled {
    std::string cubin;
    std::vector<std::string> lowered;  ///< the mangled name of each requested kernel, in order
  };

  static unsigned long long next_id()
  {
    static std::atomic<unsigned long long> n{0};
    return ++n;
  }

  std::vector<std::string> nvrtc_options(int arch) const
  {
    std::vector<std::string> o{"-std=c++17", "-default-device", "-arch=sm_" + std::to_string(arch)};
    for (auto const& d : options_.include_dirs) { o.push_back("-I" + d); }
    o.insert(o.end(), options_.flags.begin(), options_.flags.end());
    return o;
  }

  /// The cubin of the functor and `names` for sm_`arch`, from the disk cache or NVRTC.
  compiled compile(std::string const& value_type, int dims, std::vector<std::string> const& names, int arch) const
  {
    std::string const text = program_text(value_type, dims);
    std::vector<std::string> const opts = nvrtc_options(arch);
    int nv_major = 0, nv_minor = 0;
    TWOBODY_NVRTC_TRY(detail::nvrtc().version(&nv_major, &nv_minor));
    std::uint64_t key = detail::fnv1a(text);
    for (auto const& o : opts) { key = detail::fnv1a(o + '\n', key); }
    for (auto const& n : names) { key = detail::fnv1a(n + '\n', key); }
    key = detail::fnv1a(std::to_string(nv_major) + "." + std::to_string(nv_minor), key);
    key = detail::fnv1a(detail::hex(detail::headers_hash(options_.include_dirs.front())), key);
    std::string const stem = options_.cache_dir.empty() ? std::string() : options_.cache_dir + "/" + detail::hex(key);
    compiled c;
    if (!names.empty() && !stem.empty() && read_cache(stem, names.size(), c)) { return c; }

    ++compilations_;
    nvrtcProgram prog{};
    TWOBODY_NVRTC_TRY(detail::nvrtc().create_program(&prog, text.c_str(), (source_.name + ".cu").c_str(), 0, nullptr, nullptr));
    std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> const owner(&prog, [](nvrtcProgram* p) { (void)detail::nvrtc().destroy_program(p); });
    for (auto const& n : names) { TWOBODY_NVRTC_TRY(detail::nvrtc().add_name_expression(prog, ("&" + n).c_str())); }
    std::vector<char const*> argv;
    for (auto const& o : opts) { argv.push_back(o.c_str()); }
    nvrtcResult const status = detail::nvrtc().compile_program(prog, static_cast<int>(argv.size()), argv.data());
    std::size_t log_size = 0;
    TWOBODY_NVRTC_TRY(detail::nvrtc().program_log_size(prog, &log_size));
    std::string log(log_size, '\0');
    if (log_size > 0) { TWOBODY_NVRTC_TRY(detail::nvrtc().program_log(prog, log.data())); }
    if (status != NVRTC_SUCCESS) { throw twobody::error(compile_error_message(log)); }
    std::size_t cubin_size = 0;
    TWOBODY_NVRTC_TRY(detail::nvrtc().cubin_size(prog, &cubin_size));
    c.cubin.resize(cubin_size);
    TWOBODY_NVRTC_TRY(detail::nvrtc().cubin(prog, c.cubin.data()));
    for (auto const& n : names) {
      char const* lowered = nullptr;
      TWOBODY_NVRTC_TRY(detail::nvrtc().lowered_name(prog, ("&" + n).c_str(), &lowered));
      c.lowered.emplace_back(lowered);
    }
    if (!names.empty() && !stem.empty()) { write_cache(stem, c); }
    return c;
  }

  /// The message of a source that does not compile: the body, numbered, and the compiler's
  /// messages (those about the body first: they name the file `source.name`).
  std::string compile_error_message(std::string const& log) const
  {
    std::ostringstream mine, rest;
    std::istringstream in(log);
    std::string line;
    bool in_mine = false;
    while (std::getline(in, line)) {
      bool const starts = line.rfind(source_.name + "(", 0) == 0 || line.rfind(source_.name + "_preamble(", 0) == 0;
      bool const other  = !starts && line.find("): ") != std::string::npos && line.find("error") != std::string::npos;
      if (starts) { in_mine = true; }
      if (other) { in_mine = false; }
      (in_mine ? mine : rest) << line << '\n';
    }
    std::string msgs = mine.str().empty() ? rest.str() : mine.str();
    if (msgs.size() > 6000) { msgs = msgs.substr(0, 6000) + "\n[... the compiler's log goes on]\n"; }
    return "twobody: the run-time functor '" + source_.name + "' does not compile (NVRTC):\n" +
           detail::numbered(source_.body) + "\n" + msgs;
  }

  static bool read_cache(std::string const& stem, std::size_t count, compiled& c)
  {
    std::ifstream bin(stem + ".cubin", std::ios::binary), names(stem + ".names");
    if (!bin || !names) { return false; }
    std::ostringstream s;
    s << bin.rdbuf();
    c.cubin = s.str();
    c.lowered.clear();
    for (std::string line; std::getline(names, line);) { c.lowered.push_back(line); }
    return !c.cubin.empty() && c.lowered.size() == count;
  }

  /// Writes the cache entry through temporary files renamed into place (another process may read
  /// it meanwhile); a cache that cannot be written is skipped, not an error.
  static void write_cache(std::string const& stem, compiled const& c)
  {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(fs::path(stem).parent_path(), ec);
    if (ec) { return; }
    std::string const tmp = stem + "." + std::to_string(next_id()) + ".tmp";
    {
      std::ofstream names(tmp + ".names");
      for (auto const& l : c.lowered) { names << l << '\n'; }
      std::ofstream bin(tmp + ".cubin", std::ios::binary);
      bin.write(c.cubin.data(), static_cast<std::streamsize>(c.cubin.size()));
      if (!bin || !names) { return; }
    }
    fs::rename(tmp + ".names", stem + ".names", ec);
    if (!ec) { fs::rename(tmp + ".cubin", stem + ".cubin", ec); }
  }

  runtime_source source_;
  runtime_options options_;
  unsigned long long id_;
  std::mutex m_;
  std::map<std::pair<std::string, int>, std::vector<std::string>> pending_;
  std::map<std::string, void const*> kernels_;
  std::vector<cudaLibrary_t> libraries_;
  mutable std::atomic<int> compilations_{0};
};

}  // namespace twobody
