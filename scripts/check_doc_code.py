#!/usr/bin/env python3
"""Compiles every ```cpp block of README.md and docs/**/*.md as written, and checks that every
relative link of those pages, and every docs/... path that a comment in include/, python/,
benchmarks/, examples/, tests/ or scripts/ names, leads to a file.

Blocks that include the same headers (counting those <twobody/twobody.cuh> brings) compile several
to a translation unit, each in a namespace of its own; a unit that fails compiles its blocks one
by one, so a failure names its block. A block preceded by `<!-- file: PATH -->` must equal that
file of the repository (README's quick start is examples/quick_start.cu, which the examples build
compiles and ctest runs). Blocks are compiled with nvcc and the host compiler's -Wall -Wextra; a
warning from the library's headers fails the check, as does a block that does not compile. Blocks
that include <twobody/host/mpi.cuh> are compiled only when an MPI include directory is given.
DEVICE_FLAGS (default -arch=sm_90) say what device code to make: the test build passes
--generate-code=arch=compute_90a,code=[compute_90a] -Xcicc -O0 where it makes PTX only (no GPU).
Two units compile at a time.

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
failures, blocks = [f"broken link: {b}" for b in broken_links(root)], []
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
        blocks.append((md.name, k, re.sub(r"\W", "_", name), code))

compile_flags = ["-std=c++17", "--expt-relaxed-constexpr", *device_flags, f"-I{root / 'include'}",
                 *[f"-I{d}" for d in mpi_includes]]
include_re = re.compile(r"^#include\s*[<\"]([^>\"]+)[>\"]", re.M)


def headers_of_twobody_cuh():
    """The headers <twobody/twobody.cuh> includes, directly or not (nvcc -M)."""
    probe = build / "probe.cu"
    probe.write_text("#include <twobody/twobody.cuh>\n")
    r = subprocess.run([nvcc, *compile_flags, "-M", str(probe)], capture_output=True, text=True)
    return r.stdout.replace("\\\n", " ").split() if r.returncode == 0 else []


def reached(header, deps):
    """Whether <header> is one of deps (paths). <functional> is not <cuda/std/functional>."""
    for d in deps:
        if d.endswith("/" + header):
            folder = d[: -len(header) - 1]
            if header.startswith(("cuda/", "cub/", "thrust/")) or not re.search(r"/(cuda|std|cub|thrust)$", folder):
                return True
    return False


# Blocks compile several to a translation unit, each in a namespace of its own: the headers are
# most of a block's compile time. Only blocks that include <twobody/twobody.cuh> and whose other
# headers are the same, counting those twobody.cuh brings anyway, share one: each block then sees
# only headers it would see alone, so a missing #include still fails. A shared unit that
# fails, or warns from the library, compiles its blocks one by one to say which.
deps = headers_of_twobody_cuh()


def own_headers(code):
    return frozenset(h for h in include_re.findall(code) if h != "twobody/twobody.cuh" and not reached(h, deps))


def shareable(code):
    other_directives = [l for l in code.splitlines() if l.lstrip().startswith("#") and not include_re.match(l.lstrip())]
    return (deps and "#include <twobody/twobody.cuh>" in code and not other_directives
            and "namespace twobody" not in code and not re.search(r"template\s*<>", code))


groups = {}
for b in blocks:
    groups.setdefault(own_headers(b[3]) if shareable(b[3]) else ("alone", b[2]), []).append(b)
units = []
for members in groups.values():
    half = (len(members) + 1) // 2 if len(members) >= 4 else len(members)  # two halves: two compiles at a time
    units += [members[i:i + half] for i in range(0, len(members), half)]
units.sort(key=len, reverse=True)


def unit_source(members):
    if len(members) == 1:
        return members[0][3]
    headers, bodies = [], []
    for _, _, name, code in members:
        lines = code.splitlines()
        headers += [l for l in lines if include_re.match(l) and l not in headers]
        body = "\n".join(l for l in lines if not include_re.match(l))
        body = re.sub(r"\bint main\(", "int block_main(", body)  # one main per program
        bodies.append(f"namespace doc_block_{name} {{\n{body}\n}}  // namespace doc_block_{name}\n")
    return "\n".join(headers) + "\n\n" + "\n".join(bodies)


def compile_source(name, source):
    src = build / f"{name}.cu"
    src.write_text(source)
    cmd = [nvcc, *compile_flags, "-Xcompiler=-fopenmp,-Wall,-Wextra", "-c", str(src), "-o", str(build / f"{name}.o")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    out = r.stdout + r.stderr
    header_warnings = [l for l in out.splitlines() if "include/twobody/" in l and "warning" in l]
    return r.returncode, out, header_warnings


def compile_unit(members):
    """(md_name, k, problem or None, shared) for each member."""
    name = members[0][2] if len(members) == 1 else f"shared_{members[0][2]}"
    rc, out, warnings = compile_source(name, unit_source(members))
    if len(members) > 1 and (rc != 0 or warnings):
        return [r for m in members for r in compile_unit([m])]
    if rc != 0:
        problem = f"does not compile:\n{out}"
    elif warnings:
        problem = "has warnings from library headers:\n" + "\n".join(warnings)
    else:
        problem = None
    return [(md_name, k, problem, len(members)) for md_name, k, _, _ in members]


with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    for results in pool.map(compile_unit, units):
        for md_name, k, problem, shared in results:
            if problem:
                failures.append(f"{md_name} block {k} {problem}")
            else:
                print(f"ok   {md_name} block {k}" + (f" (one of {shared} in a translation unit)" if shared > 1 else ""))
print(f"{len(blocks)} blocks compiled ({len(units)} translation units), {len(failures)} problems")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
