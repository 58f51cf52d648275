#!/usr/bin/env python3
"""Compiles every ```cpp block of README.md and docs/*.md as written, one translation unit each.

A block preceded by `<!-- file: PATH -->` must equal that file of the repository (README's quick
start is examples/quick_start.cu, which the examples build compiles and ctest runs). Blocks are
compiled with nvcc and the host compiler's -Wall -Wextra; a warning from the library's headers
fails the check, as does a block that does not compile. Blocks that include <twobody/host/mpi.cuh>
are compiled only when an MPI include directory is given. DEVICE_FLAGS (default -arch=sm_90)
say what device code to make: the test build passes -arch=compute_90a -Xcicc -O0 where it
makes PTX only (no GPU). Two blocks compile at a time.

usage: check_doc_code.py REPO_ROOT BUILD_DIR NVCC [MPI_INCLUDE_DIRS] [DEVICE_FLAGS]
"""
import concurrent.futures
import pathlib
import re
import shlex
import subprocess
import sys

if len(sys.argv) in (2,) and sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0)
if len(sys.argv) < 4:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
root, build, nvcc = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
mpi_includes = [d for d in (sys.argv[4].split(";") if len(sys.argv) > 4 else []) if d]
device_flags = shlex.split(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5].strip() else ["-arch=sm_90"]
build.mkdir(parents=True, exist_ok=True)

block_re = re.compile(r"(?:<!-- file: (?P<file>\S+) -->\n)?```cpp\n(?P<code>.*?)```", re.S)
failures, jobs = [], []
for md in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
    for k, m in enumerate(block_re.finditer(md.read_text())):
        name = f"{md.stem}_{k}"
        code = m.group("code")
        if m.group("file"):
            want = (root / m.group("file")).read_text()
            if code != want:
                failures.append(f"{md.name} block {k}: differs from {m.group('file')} (copy the file into the block)")
            continue  # compiled and run as an example
        if "twobody/host/mpi.cuh" in code and not mpi_includes:
            print(f"skip {md.name} block {k}: needs MPI")
            continue
        src = build / f"{name}.cu"
        src.write_text(code)
        cmd = [nvcc, "-std=c++17", "--expt-relaxed-constexpr", *device_flags, f"-I{root / 'include'}",
               "-Xcompiler=-fopenmp,-Wall,-Wextra", "-c", str(src), "-o", str(build / f"{name}.o")]
        cmd += [f"-I{d}" for d in mpi_includes]
        jobs.append((md.name, k, cmd))


def compile_block(job):
    md_name, k, cmd = job
    r = subprocess.run(cmd, capture_output=True, text=True)
    return md_name, k, r.returncode, r.stdout + r.stderr


checked = len(jobs)
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    for md_name, k, rc, out in pool.map(compile_block, jobs):
        header_warnings = [l for l in out.splitlines() if "include/twobody/" in l and "warning" in l]
        if rc != 0:
            failures.append(f"{md_name} block {k} does not compile:\n{out}")
        elif header_warnings:
            failures.append(f"{md_name} block {k}: warnings from library headers:\n" + "\n".join(header_warnings))
        else:
            print(f"ok   {md_name} block {k}")
print(f"{checked} blocks compiled, {len(failures)} problems")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
