/// \file nvrtc_entry_points.cuh
/// \brief NVRTC's entry points for runtime_program: linked (the default; CMake's twobody::runtime
/// links CUDA::nvrtc) or, with TWOBODY_NVRTC_DLOPEN defined, looked up in libnvrtc.so.<major> when
/// a program first compiles. The Python wheel takes the second way, so that it imports and runs
/// everything but run-time functors on a machine without NVRTC, and finds the library of the
/// nvidia-cuda-nvrtc wheel (which the package loads first) or of a CUDA toolkit.
#pragma once

#include <twobody/util/error.cuh>

#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <string>

#ifdef TWOBODY_NVRTC_DLOPEN
#if defined(_WIN32)
#error "TWOBODY_NVRTC_DLOPEN: loading NVRTC at run time is implemented for Linux (dlopen) only"
#endif
#include <dlfcn.h>

#include <cstdlib>
#include <type_traits>
#include <vector>
#endif

namespace twobody::detail {

/// The NVRTC functions runtime_program calls.
struct nvrtc_entry_points {
  decltype(&nvrtcVersion) version                      = nullptr;
  decltype(&nvrtcGetErrorString) error_string          = nullptr;
  decltype(&nvrtcCreateProgram) create_program         = nullptr;
  decltype(&nvrtcDestroyProgram) destroy_program       = nullptr;
  decltype(&nvrtcAddNameExpression) add_name_expression = nullptr;
  decltype(&nvrtcCompileProgram) compile_program       = nullptr;
  decltype(&nvrtcGetProgramLogSize) program_log_size   = nullptr;
  decltype(&nvrtcGetProgramLog) program_log            = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size              = nullptr;
  decltype(&nvrtcGetCUBIN) cubin                       = nullptr;
  decltype(&nvrtcGetLoweredName) lowered_name          = nullptr;
};

#ifdef TWOBODY_NVRTC_DLOPEN
/// The NVRTC library of this CUDA major version: TWOBODY_NVRTC_LIBRARY (a path), else the
/// soname (already loaded, or on the loader's path), else the toolkit's under CUDA_HOME,
/// CUDA_PATH and the root this program was built with (TWOBODY_CUDA_ROOT).
inline nvrtc_entry_points load_nvrtc()
{
  std::string const soname = "libnvrtc.so." + std::to_string(CUDART_VERSION / 1000);
  std::vector<std::string> tries;
  if (char const* own = std::getenv("TWOBODY_NVRTC_LIBRARY"); own != nullptr && *own != '\0') { tries.emplace_back(own); }
  tries.push_back(soname);
  std::vector<char const*> roots{std::getenv("CUDA_HOME"), std::getenv("CUDA_PATH")};
#ifdef TWOBODY_CUDA_ROOT
  roots.push_back(TWOBODY_CUDA_ROOT);
#endif
  for (char const* root : roots) {
    if (root != nullptr && *root != '\0') {
      tries.push_back(std::string(root) + "/lib64/" + soname);
      tries.push_back(std::string(root) + "/lib/" + soname);
    }
  }
  void* lib = nullptr;
  for (auto const& path : tries) {
    if ((lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) { break; }
  }
  TWOBODY_EXPECTS(lib != nullptr, ("run-time functors need NVRTC (" + soname +
                                   ") and none was found: pip install nvidia-cuda-nvrtc, or install the CUDA toolkit and "
                                   "set CUDA_HOME (or TWOBODY_NVRTC_LIBRARY to the library's path)")
                                    .c_str());
  auto get = [&](auto& fn, char const* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    TWOBODY_EXPECTS(fn != nullptr, (std::string("the NVRTC library found has no ") + name + ": it is not NVRTC " +
                                    std::to_string(CUDART_VERSION / 1000) + ".x")
                                     .c_str());
  };
  nvrtc_entry_points e;
  get(e.version, "nvrtcVersion");
  get(e.error_string, "nvrtcGetErrorString");
  get(e.create_program, "nvrtcCreateProgram");
  get(e.destroy_program, "nvrtcDestroyProgram");
  get(e.add_name_expression, "nvrtcAddNameExpression");
  get(e.compile_program, "nvrtcCompileProgram");
  get(e.program_log_size, "nvrtcGetProgramLogSize");
  get(e.program_log, "nvrtcGetProgramLog");
  get(e.cubin_size, "nvrtcGetCUBINSize");
  get(e.cubin, "nvrtcGetCUBIN");
  get(e.lowered_name, "nvrtcGetLoweredName");
  return e;  // (the library stays loaded: its functions are used until the process ends)
}
#endif

/// NVRTC's entry points, loaded on first use where TWOBODY_NVRTC_DLOPEN asks for it (a failed
/// load throws twobody::error, and the next call tries again).
inline nvrtc_entry_points const& nvrtc()
{
#ifdef TWOBODY_NVRTC_DLOPEN
  static nvrtc_entry_points const e = load_nvrtc();
#else
  static nvrtc_entry_points const e{&nvrtcVersion,       &nvrtcGetErrorString,    &nvrtcCreateProgram, &nvrtcDestroyProgram,
                                    &nvrtcAddNameExpression, &nvrtcCompileProgram, &nvrtcGetProgramLogSize,
                                    &nvrtcGetProgramLog, &nvrtcGetCUBINSize,      &nvrtcGetCUBIN,      &nvrtcGetLoweredName};
#endif
  return e;
}

}  // namespace twobody::detail
