"""Findings: what a read, write or conversion found, as objects and as warnings."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from ._errors import ErrorFinding, WarningFinding


@dataclass(frozen=True)
class Finding:
    """One thing a read, validation, write or conversion found.

    ``code`` is stable (``area.what``, e.g. ``inertia.not_psd``); ``severity`` is ``info``,
    ``warning`` or ``error``; ``category`` says what happened to the data (``dropped``,
    ``approximated``, ``renamed``, ``defaulted``, ``ignored``, ``invalid``, ``note``); ``path``
    is the IR path of the item (``bodies["link 1"].inertial``); ``file``, ``line`` and
    ``column`` say where in the source, when known.
    """

    code: str
    severity: str
    category: str
    message: str
    path: Optional[str] = None
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None

    @property
    def is_loss(self) -> bool:
        """True when the data was dropped, approximated or ignored."""
        return self.category in ("dropped", "approximated", "ignored")

    def __str__(self) -> str:
        where = self.file or ""
        if self.line is not None:
            where += f":{self.line}:{self.column}"
        at = f" [{self.path}]" if self.path else ""
        return f"{where + ': ' if where else ''}{self.severity}[{self.code}]{at}: {self.message}"


def findings_of(report: Dict[str, Any]) -> List[Finding]:
    """The findings of a report as the facade serialises it."""
    file = report.get("file")
    out = []
    for f in report.get("findings", []):
        span = f.get("span") or {}
        out.append(
            Finding(
                code=f["code"],
                severity=f["severity"],
                category=f["category"],
                message=f["message"],
                path=f.get("path"),
                file=f.get("file", file),
                line=span.get("line"),
                column=span.get("column"),
            )
        )
    return out


def warn(findings: List[Finding], stacklevel: int = 3) -> None:
    """Issues the findings of severity ``warning`` and ``error`` through :mod:`warnings`
    (categories :class:`WarningFinding` and :class:`ErrorFinding`)."""
    for f in findings:
        if f.severity == "warning":
            warnings.warn(WarningFinding(str(f), f), stacklevel=stacklevel)
        elif f.severity == "error":
            warnings.warn(ErrorFinding(str(f), f), stacklevel=stacklevel)
