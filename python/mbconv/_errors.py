"""The exceptions mbconv raises, and the warning categories of findings.

Every exception is an :class:`Error` with the diagnostic's ``code`` (``urdf::xml``,
``mbconv::io``, ...), the ``file``, ``line`` and ``column`` it points at when known, the
``message`` and ``rendered`` (the diagnostic as the ``mbconv`` command prints it, with the
source snippet).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, List, Optional

if TYPE_CHECKING:
    from ._report import Finding


class Error(Exception):
    """Something mbconv could not do."""

    code: Optional[str]
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    message: str
    rendered: str
    findings: "List[Finding]"

    def __init__(
        self,
        message: str,
        code: Optional[str] = None,
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        rendered: Optional[str] = None,
        findings: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.rendered = rendered if rendered is not None else message
        from ._report import findings_of

        self.findings = findings_of(json.loads(findings)) if findings else []

    def __reduce__(self) -> "tuple[object, ...]":
        """Pickled with its code, location and findings (how Ray sends it back)."""
        return (_rebuild, (type(self), self.message, self.code, self.file, self.line, self.column, self.rendered, self.findings))

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file
            if self.line is not None:
                where += f":{self.line}:{self.column}"
            if where in self.message:
                return self.message
            if self.message.startswith(self.file + " "):
                # "FILE is not a valid model ..." reads "FILE:LINE:COLUMN is not a valid model".
                return where + self.message[len(self.file) :]
            return f"{where}: {self.message}"
        return self.message


def _rebuild(
    cls: "type[Error]",
    message: str,
    code: Optional[str],
    file: Optional[str],
    line: Optional[int],
    column: Optional[int],
    rendered: str,
    findings: "List[Finding]",
) -> Error:
    error = cls(message, code, file, line, column, rendered)
    error.findings = list(findings)
    return error


class ReadError(Error):
    """A model could not be read: the file is missing, or the reader refused its text."""


class InvalidModelError(ReadError):
    """The model breaks the rules of the IR; ``findings`` lists every error."""


class WriteError(Error):
    """A model could not be written: the writer refused it, the output exists, or the file
    could not be written."""


class SettingError(Error, ValueError):
    """A setting the format does not take, or a value of the wrong type."""


class FormatLookupError(Error, ValueError):
    """No format answers to a name, an extension or a content."""


class StrictError(Error):
    """``strict=True`` refused a physically dubious model or a lossy conversion."""


class CheckError(Error):
    """A check could not run."""


class SimulationError(Error):
    """The simulation failed (diverged, or could not close a loop)."""


class FindingWarning(UserWarning):
    """A finding of a read, write or conversion, issued through :mod:`warnings`: ``finding``
    is the :class:`Finding` itself (``None`` only when the warning was made by hand) and
    ``code`` its code, so a handler, or an ``except`` under ``-W error``, can tell one
    finding from another without parsing the text."""

    def __init__(self, message: str, finding: Optional["Finding"] = None) -> None:
        super().__init__(message)
        self.finding = finding

    @property
    def code(self) -> Optional[str]:
        """The finding's code (``mjcf.mesh_lost``, ...)."""
        return self.finding.code if self.finding is not None else None

    def __reduce__(self) -> Any:
        return (type(self), (str(self), self.finding))


class WarningFinding(FindingWarning):
    """A finding of severity ``warning``: data was changed or lost, or looks wrong."""


class ErrorFinding(FindingWarning):
    """A finding of severity ``error``."""


__all__ = [
    "Error",
    "ReadError",
    "InvalidModelError",
    "WriteError",
    "SettingError",
    "FormatLookupError",
    "StrictError",
    "CheckError",
    "SimulationError",
    "FindingWarning",
    "WarningFinding",
    "ErrorFinding",
]
