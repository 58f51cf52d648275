#!/usr/bin/env python3
"""Compiles every ```cpp block of README.md and docs/**/*.md as written, one translation unit each,
and checks that every relative link of those pages, and every docs/... path that a comment in
include/, python/, benchmarks/, examples/, tests/ or scripts/ names, leads to a file.

A block preceded by `<!-- file: PATH -->` must equal that file of the repository (README's quick
start is examples/quick_start.cu, which the examples build compiles and ctest runs). Blocks are
compiled with nvcc and the host compiler's -Wall -Wextra; a warning from the library's headers
fails the check, as does a block that does not compile. Blocks that include <twobody/host/mpi.cuh>
are compiled only when an MPI include directory is given. DEVICE_FLAGS (default -arch=sm_90)
say what device code to make: the test build passes
--generate-code=arch=compute_90a,code=[compute_90a] -Xcicc -O0 where it makes PTX only (no GPU). Two blocks compile at a time.

usage: check_doc_code.py REPO_ROOT BUILD_DIR NVCC [MPI_INCLUDE_DIRS] [DEVICE_FLAGS]
       check_doc_code.py REPO_ROOT --links-only
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

def doc_pages(root):
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def broken_links(root):
    """Relative links of the pages, and docs/ paths named in the code, that lead nowhere."""
    broken = []
    link_re = re.compile(r"\]\(([^)\s]+)\)")
    for md in doc_pages(root):
        text = re.sub(r"```.*?```", "", md.read_text(), flags=re.S)
        for target in link_re.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = (md.parent / target.split("#")[0]).resolve()
            if not path.exists():
                broken.append(f"{md.relative_to(root)}: link to {target}, which does not exist")
    named = re.compile(r"\bdocs/[A-Za-z0-9_./-]+\.md")
    for folder in ("include", "python", "benchmarks", "examples", "tests", "scripts"):
        for f in sorted((root / folder).rglob("*")):
            if f.suffix not in (".cuh", ".cu", ".hpp", ".h", ".py", ".pyi", ".sh", ".txt", ".cpp") or not f.is_file():
                continue
            for path in set(named.findall(f.read_text(errors="replace"))):
                if not (root / path).exists():
                    broken.append(f"{f.relative_to(root)}: names {path}, which does not exist")
    return broken


if len(sys.argv) == 3 and sys.argv[2] == "--links-only":
    problems = broken_links(pathlib.Path(sys.argv[1]))
    print("\n".join(problems) or "every link leads to a file")
    sys.exit(1 if problems else 0)
if len(sys.argv) < 4:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
root, build, nvcc = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
mpi_includes = [d for d in (sys.argv[4].split(";") if len(sys.argv) > 4 else []) if d]
device_flags = shlex.split(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5].strip() else ["-arch=sm_90"]
build.mkdir(parents=True, exist_ok=True)

block_re = re.compile(r"(?:<!-- file: (?P<file>\S+) -->\n)?```cpp\n(?P<code>.*?)```", re.S)
failures, jobs = [f"broken link: {b}" for b in broken_links(root)], []
for md in doc_pages(root):
    for k, m in enumerate(block_re.finditer(md.read_text())):
        name = f"{md.parent.name}_{md.stem}_{k}" if md.parent != root / "docs" else f"{md.stem}_{k}"
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
