"""The examples of docs/python.md run (each ```python block, in order, in one namespace, in the
repository's root)."""

from __future__ import annotations

import re
import warnings

from conftest import ROOT

DOC = ROOT / "docs" / "python.md"


def blocks() -> list:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_examples_run() -> None:
    found = blocks()
    assert len(found) >= 5
    namespace: dict = {"__name__": "docs_python"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for i, code in enumerate(found):
            try:
                exec(compile(code, f"docs/python.md block {i + 1}", "exec"), namespace)
            except Exception as e:  # the block's number says which example broke
                raise AssertionError(f"docs/python.md block {i + 1} failed: {e!r}\n{code}") from e
