"""Every ```python block of README.md and docs/ (guides included) runs as written (CPU backend where there
is no GPU; blocks that need CuPy check for it themselves)."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def blocks():
    found = []
    for md in (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))):
        for k, code in enumerate(BLOCK.findall(md.read_text())):
            found.append(pytest.param(code, id=f"{md.relative_to(ROOT)}-{k}"))
    return found


def test_the_docs_have_python_blocks():
    assert len(blocks()) >= 12


@pytest.mark.parametrize("code", blocks())
def test_block_runs(code):
    exec(compile(code, "<docs>", "exec"), {})
