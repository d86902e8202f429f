"""mbconv: convert multibody models between formats (Chrono YAML, DART SKEL, Choreonoid Body,
Shift JSON, URDF, MuJoCo MJCF, SDFormat and the mbconv IR as JSON), report what a conversion
cannot carry, and prove conversions by simulating them.

>>> import mbconv
>>> model = mbconv.read("robot.urdf")                       # doctest: +SKIP
>>> mjcf = model.to_string("mjcf")                          # doctest: +SKIP
>>> report = mbconv.check(model, via=["mjcf"])              # doctest: +SKIP

The work is done in Rust (the ``mbconv`` crate), with the GIL released; the model is held once,
in Rust. See ``docs/python.md``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

from . import _native
from ._errors import (
    CheckError,
    Error,
    ErrorFinding,
    FindingWarning,
    FormatLookupError,
    InvalidModelError,
    ReadError,
    SettingError,
    SimulationError,
    StrictError,
    WarningFinding,
    WriteError,
)
from ._report import Finding, findings_of, warn

__version__: str = _native.__version__

PathLike = Union[str, "os.PathLike[str]"]
SettingValue = Union[str, bool, int, float, "os.PathLike[str]"]


# --- settings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One setting a format takes: its ``name`` (``sim-out``), the values it expects
    (``expected``: ``true | false``, ``degrees | radians``, ``PATH``, ...), its default in
    words and one line of help."""

    name: str
    expected: str
    default: str
    help: str


@dataclass(frozen=True)
class FormatInfo:
    """A format this build reads and writes, as ``mbconv formats --settings`` lists it."""

    name: str
    aliases: Tuple[str, ...]
    extensions: Tuple[str, ...]
    description: str
    short: Optional[str]
    read_settings: Tuple[Setting, ...]
    write_settings: Tuple[Setting, ...]


_FORMATS: Optional[List[FormatInfo]] = None


def formats() -> List[FormatInfo]:
    """Every format of this build, with its names, extensions and settings."""
    global _FORMATS
    if _FORMATS is None:
        _FORMATS = [
            FormatInfo(
                name=f["name"],
                aliases=tuple(f["aliases"]),
                extensions=tuple(f["extensions"]),
                description=f["description"],
                short=f["short"],
                read_settings=tuple(Setting(**s) for s in f["read_settings"]),
                write_settings=tuple(Setting(**s) for s in f["write_settings"]),
            )
            for f in json.loads(_native.formats())
        ]
    return list(_FORMATS)


def xacro_settings() -> Tuple[Setting, ...]:
    """The read settings a ``.xacro`` input (``robot.urdf.xacro``) takes besides those of the
    format its expansion is read as: ``arg:NAME`` (the argument ``NAME``, xacro's
    ``NAME:=VALUE``) and ``package_path`` (where ``$(find PKG)`` and ``package://`` look), as
    ``mbconv formats --settings`` lists them. Pass them as ``read(path, **{"arg:NAME": v})``."""
    return tuple(Setting(**s) for s in json.loads(_native.xacro_settings()))


def _check_mode(check: Union[bool, str]) -> str:
    """How the extension is to check a conversion: ``"none"`` for ``False``, ``"auto"`` (within
    the work budget) for ``True``, ``"full"`` for ``"full"``; anything else is a mistake the
    caller should hear about, not a check silently run or skipped."""
    if check is True or check is False:
        return "auto" if check else "none"
    if check == "full":
        return "full"
    raise ValueError(f"check= takes True, False or 'full', not {check!r}")


def _settings(given: Mapping[str, SettingValue], write: bool) -> Dict[str, str]:
    """Keyword settings as the registry takes them: ``True`` -> ``"true"``, paths as text,
    and ``sim_out`` spelt ``sim-out`` when a format has a setting of that name (a Python
    keyword cannot hold ``-``)."""
    known: Set[str] = set()
    for f in formats():
        known.update(s.name for s in (f.write_settings if write else f.read_settings))
    out = {}
    for key, value in given.items():
        if key not in known and key.replace("_", "-") in known:
            key = key.replace("_", "-")
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, os.PathLike):
            text = os.fspath(value)
        else:
            text = str(value)
        out[key] = text
    return out


# --- progress -------------------------------------------------------------------------------

Progress = Union[None, bool, Callable[..., Any]]


class _Bar:
    """How long work reports progress: the caller's callable, a ``tqdm`` bar, or nothing.

    ``progress`` is a callable (called as each function says), ``True`` (a ``tqdm`` bar; a
    notice when ``tqdm`` is not installed), ``False`` (nothing) or ``None`` (a ``tqdm`` bar when
    ``tqdm`` is installed and standard error is a terminal, else nothing)."""

    def __init__(self, progress: Progress, what: str, unit: str) -> None:
        self.callable: Optional[Callable[..., Any]] = progress if callable(progress) else None
        self.bar: Any = None
        if progress is False or self.callable is not None:
            return
        import sys

        if progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
            return
        try:
            import importlib

            tqdm = importlib.import_module("tqdm.auto").tqdm
        except ImportError:
            if progress is True:
                import warnings

                warnings.warn("progress=True shows a tqdm bar: pip install tqdm", stacklevel=3)
            return
        self.bar = tqdm(desc=what, unit=unit)

    def __call__(self, done: float, total: float, *rest: Any) -> None:
        # Simulated time sums its steps and can pass the duration by a rounding (0.2 s as
        # 0.20000000000000015): progress never reports more than the whole.
        done = min(done, total)
        if self.callable is not None:
            self.callable(done, total, *rest)
        elif self.bar is not None:
            self.bar.total = total
            self.bar.n = done
            self.bar.refresh()

    @property
    def active(self) -> bool:
        return self.callable is not None or self.bar is not None

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# --- the model ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Body:
    """A body at the model's initial state: mass (kg), welded to the world or not, the world
    position and orientation (``[w, x, y, z]``) of its frame and the world position of its
    centre of mass."""

    name: str
    mass: float
    fixed: bool
    position: Tuple[float, float, float]
    orientation: Tuple[float, float, float, float]
    com_position: Tuple[float, float, float]


@dataclass(frozen=True)
class Joint:
    """A joint: its type (``revolute``, ``free``, ...), parent and child body names
    (``world`` for the world), degrees of freedom, and whether it closes a loop."""

    name: str
    type: str
    parent: str
    child: str
    dof: int
    closes_loop: bool


class Model:
    """A multibody model in mbconv's neutral representation (the IR), held once, in Rust.

    Make one with :func:`read`, :func:`read_string` or :meth:`Model.from_dict`. ``findings``
    are what the reading found.
    """

    __slots__ = ("_native", "findings")

    def __init__(self, native: _native.Model, findings: Optional[List[Finding]] = None) -> None:
        self._native = native
        self.findings: List[Finding] = findings or []

    def __repr__(self) -> str:
        summary = self.info()
        return f"<mbconv.Model {self.name!r}: {len(summary['bodies'])} bodies, {len(summary['joints'])} joints>"

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        """Pickled as the IR's JSON and its findings (how Ray and ``multiprocessing`` send a
        model to another process)."""
        return (_unpickle_model, (self.to_json(), self.findings))

    @property
    def name(self) -> str:
        """The model's name."""
        return self._native.name

    def info(self) -> Dict[str, Any]:
        """The model's summary at its initial state, as ``mbconv info --json`` prints it:
        name, gravity, time step, bodies, joints, ``dof_total``, ``loop_count`` and counts of
        everything else."""
        summary: Dict[str, Any] = json.loads(self._native.summary_json())
        return summary

    @property
    def gravity(self) -> Optional[Tuple[float, float, float]]:
        """The gravity vector (m/s²), or ``None`` when the model does not give one."""
        return self._native.gravity

    @property
    def time_step(self) -> Optional[float]:
        """The model's time step hint (s), or ``None``."""
        return self._native.time_step

    @property
    def bodies(self) -> List[Body]:
        """The bodies, in model order, at the initial state: a new list made from the Rust
        model at each access (nothing is cached beside it), so keep it in a variable rather
        than indexing ``model.bodies[i]`` in a loop."""
        return [
            Body(
                name=b["name"],
                mass=b["mass"],
                fixed=b["fixed"],
                position=tuple(b["position"]),
                orientation=tuple(b["orientation_wxyz"]),
                com_position=tuple(b["com_position"]),
            )
            for b in self.info()["bodies"]
        ]

    @property
    def joints(self) -> List[Joint]:
        """The joints, in model order (a new list at each access, as :attr:`bodies`)."""
        return [
            Joint(
                name=j["name"],
                type=j["type"],
                parent=j["parent"],
                child=j["child"],
                dof=j["dof"],
                closes_loop=j["closes_loop"],
            )
            for j in self.info()["joints"]
        ]

    def to_json(self) -> str:
        """The model as the IR's JSON (the text of a ``.mbir.json`` file)."""
        return self._native.to_json()

    def to_dict(self) -> Dict[str, Any]:
        """The model as the IR's JSON, parsed (what ``json.load`` gives for a
        ``.mbir.json`` file)."""
        result: Dict[str, Any] = json.loads(self.to_json())
        return result

    @classmethod
    def from_json(cls, text: str, name: str = "<mbir dict>") -> "Model":
        """A model from the IR's JSON text, validated as :func:`read` validates; ``name`` is
        the name its errors use."""
        native, report = _native.Model.from_json(text, name)
        found = findings_of(json.loads(report))
        warn(found)
        return cls(native, found)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Model":
        """A model from the IR's JSON as a dictionary (see :meth:`to_dict`)."""
        return cls.from_json(json.dumps(data, allow_nan=False))

    def write(self, path: PathLike, format: Optional[str] = None, **settings: SettingValue) -> List[Finding]:
        """Writes the model to ``path`` in ``format`` (default: by the file's extension) with
        the writer's settings (``mbconv.formats()`` lists them; ``sim_out=...`` for
        ``sim-out``), companions beside it, each file atomically, replacing files that exist.
        Returns what the writer could not say; warnings also go through :mod:`warnings`."""
        _, report = self._native.write(os.fspath(path), format, _settings(settings, write=True))
        found = findings_of(json.loads(report))
        warn(found)
        return found

    def to_string(self, format: str, **settings: SettingValue) -> str:
        """The model's text in ``format`` (``mjcf``, ``urdf``, ``sdf``, ``skel``, ``chrono``,
        ``body``, ``shift``, ``mbir``) with the writer's settings. What the writer could not
        say goes through :mod:`warnings`; companion files (a Chrono simulation file) are not
        returned: use :meth:`write` for them."""
        text, report = self._native.to_text(format, _settings(settings, write=True))
        warn(findings_of(json.loads(report)))
        return text

    def check(self, via: Optional[Sequence[str]] = None, **options: Any) -> "CheckReport":
        """:func:`check` on this model."""
        return check(self, via=via, **options)

    def simulate(self, duration: float = 1.0, dt: Optional[float] = None, **options: Any) -> "Trajectory":
        """:func:`simulate` on this model."""
        return simulate(self, duration=duration, dt=dt, **options)


def _unpickle_model(text: str, findings: List[Finding]) -> Model:
    native, _ = _native.Model.from_json(text, "<pickled model>")
    return Model(native, list(findings))


def read(path: PathLike, format: Optional[str] = None, **settings: SettingValue) -> Model:
    """Reads the model in the file ``path``, its format ``format`` (a name or alias:
    ``urdf``, ``yaml``, ...) or else found by extension and content, with the reader's
    settings (``mbconv.formats()`` lists them), and validates it. A model that breaks the IR's
    rules raises :class:`InvalidModelError`; what the reading found is ``model.findings``, and
    its warnings go through :mod:`warnings`."""
    native, report = _native.read(os.fspath(path), format, _settings(settings, write=False))
    found = findings_of(json.loads(report))
    warn(found)
    return Model(native, found)


def read_string(text: str, format: str, *, name: Optional[str] = None, **settings: SettingValue) -> Model:
    """Reads a model from ``text`` in ``format``, as :func:`read` reads a file, with the
    reader's settings. ``name`` is the file name its findings and errors give (default
    ``<FORMAT text>``, e.g. ``<urdf text>``). Relative references (meshes, included files)
    resolve against the working directory."""
    native, report = _native.read_string(text, format, _settings(settings, write=False), name)
    found = findings_of(json.loads(report))
    warn(found)
    return Model(native, found)


# --- checks ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Explanation:
    """A lowering pass whose change of motion explains a difference: the pass, the code and
    IR path of the finding that excuses it, and the largest centre-of-mass error its change
    caused on its own (m)."""

    pass_: str
    code: str
    path: str
    max_com_error: Optional[float]


@dataclass(frozen=True)
class ErrorTrace:
    """The worst body's centre of mass over time in the original and the converted model:
    ``t`` (n,), ``original`` and ``converted`` (n, 3), ``error`` (n,) their distance (m)."""

    body: str
    t: Any
    original: Any
    converted: Any

    @property
    def error(self) -> Any:
        """The distance between the two paths at each time (m)."""
        import numpy as np

        return np.linalg.norm(self.converted - self.original, axis=1)


@dataclass(frozen=True)
class BodyErrors:
    """Every body's error over time, original against conversion, as the verdict measures it:
    ``t`` (n,) the sample times (s), ``position`` (n, bodies) the distance between each body's
    centres of mass (m), ``rotation`` (n, bodies) the angle between its rotations since t = 0
    (rad), the columns in the order of ``body_names`` (the original's bodies); NaN for a body
    the conversion lost."""

    body_names: Tuple[str, ...]
    t: Any
    position: Any
    rotation: Any

    def __getitem__(self, body: str) -> Tuple[Any, Any]:
        """``(position, rotation)`` errors (n,) of one body; ``KeyError`` for a body the
        check did not compare."""
        if body not in self.body_names:
            raise KeyError(body)
        i = self.body_names.index(body)
        return self.position[:, i], self.rotation[:, i]


@dataclass(frozen=True)
class TargetCheck:
    """The check of one target format: ``verdict`` as ``mbconv check`` spells it (``exact``,
    ``explained``, ``unexplained``, ``failed``, ``not compared``, ``skipped``), the largest
    errors and where, the findings (codes) that record a loss, ``explained_by``, ``errors``
    (:class:`BodyErrors`: every body's position and rotation error over time as numpy arrays)
    and ``trace``, the worst body's paths as numpy arrays (``None`` when no body parted at
    all). ``errors`` and ``trace`` are ``None`` when no motions were compared. ``data`` is the
    target as ``mbconv check --json`` prints it."""

    format: str
    verdict: str
    message: str
    max_com_error: Optional[float]
    max_com_error_time: Optional[float]
    max_com_error_body: Optional[str]
    max_rotation_error: Optional[float]
    max_rotation_error_body: Optional[str]
    findings: Tuple[str, ...]
    explained_by: Tuple[Explanation, ...]
    trace: Optional[ErrorTrace]
    data: Dict[str, Any] = field(repr=False, compare=False)
    errors: Optional[BodyErrors] = field(default=None, repr=False, compare=False)

    @property
    def passed(self) -> bool:
        """False for ``unexplained`` and ``failed``."""
        return self.verdict not in ("unexplained", "failed")


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check` found: one :class:`TargetCheck` per target format. ``data`` is the
    report as ``mbconv check --json`` prints it."""

    model: str
    targets: Tuple[TargetCheck, ...]
    data: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def passed(self) -> bool:
        """True when no target is ``unexplained`` or ``failed``."""
        return all(t.passed for t in self.targets)

    def __getitem__(self, format: str) -> TargetCheck:
        for t in self.targets:
            if t.format == format:
                return t
        raise KeyError(format)


def _floats(raw: bytes, *shape: int) -> Any:
    import numpy as np

    return np.frombuffer(raw, dtype=np.float64).reshape(shape)


def _target(
    data: Dict[str, Any],
    traces: Dict[str, ErrorTrace],
    errors: Optional[Dict[str, BodyErrors]] = None,
) -> TargetCheck:
    return TargetCheck(
        format=data["format"],
        verdict=data["verdict"],
        message=data["message"],
        max_com_error=data.get("max_com_error"),
        max_com_error_time=data.get("max_com_error_time"),
        max_com_error_body=data.get("max_com_error_body"),
        max_rotation_error=data.get("max_rotation_error"),
        max_rotation_error_body=data.get("max_rotation_error_body"),
        findings=tuple(data.get("findings", [])),
        explained_by=tuple(
            Explanation(pass_=e["pass"], code=e["code"], path=e["path"], max_com_error=e.get("max_com_error"))
            for e in data.get("explained_by", [])
        ),
        trace=traces.get(data["format"]),
        data=data,
        errors=(errors or {}).get(data["format"]),
    )


def check(
    model: Union[Model, PathLike],
    via: Union[None, str, Sequence[str]] = None,
    all: bool = False,
    duration: float = 1.0,
    dt: Optional[float] = None,
    integrator: Optional[str] = None,
    tol_pos: float = 1e-6,
    tol_rot: float = 1e-6,
    format: Optional[str] = None,
    progress: Progress = None,
    **settings: SettingValue,
) -> CheckReport:
    """Proves conversions by simulation, as ``mbconv check`` does: converts ``model`` (a
    :class:`Model`, or a file read with ``format`` and the reader's ``settings``) to each
    format of ``via`` (``all=True`` or no ``via``: every format), reads each back, simulates
    the original and the conversions for ``duration`` seconds and compares the bodies'
    motions within ``tol_pos`` (m) and ``tol_rot`` (rad). ``progress(done, total, step)`` is
    called after the original's simulation (``step`` is ``"original"``) and after each target
    (its format); ``progress=True`` shows a ``tqdm`` bar (see :func:`convert_many`). The GIL is
    released while Rust works."""
    if isinstance(model, Model):
        name = model.name
    else:
        name = os.fspath(model)
        model = read(model, format=format, **settings)
    targets = [] if all or via is None else [via] if isinstance(via, str) else list(via)
    bar = _Bar(progress, f"check {name}", "step")
    try:
        report, traces = _native.check(
            model._native, name, targets, duration, dt, integrator, tol_pos, tol_rot, bar if bar.active else None
        )
    finally:
        bar.close()
    data = json.loads(report)
    by_format: Dict[str, ErrorTrace] = {}
    errors: Dict[str, BodyErrors] = {}
    for f, body, t, original, converted, bodies, position, rotation in traces:
        times = _floats(t, -1)
        if body is not None:
            by_format[f] = ErrorTrace(
                body=body,
                t=times,
                original=_floats(original, -1, 3),
                converted=_floats(converted, -1, 3),
            )
        rows = len(position) // 8 // max(len(bodies), 1)
        errors[f] = BodyErrors(
            body_names=tuple(bodies),
            t=times[:rows],
            position=_floats(position, rows, len(bodies)),
            rotation=_floats(rotation, rows, len(bodies)),
        )
    return CheckReport(
        model=data["model"],
        targets=tuple(_target(t, by_format, errors) for t in data["targets"]),
        data=data,
    )


# --- conversions ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Conversion:
    """What :func:`convert` did: the model read, the files written (the output, then its
    companions and assets), every finding of the reading, validation and writing, and the
    check of the conversion (``None`` when none ran)."""

    model: Model
    files: Tuple[str, ...]
    findings: Tuple[Finding, ...]
    check: Optional[TargetCheck]

    @property
    def has_loss(self) -> bool:
        """True when the reading or the writing dropped or approximated something."""
        return any(f.is_loss for f in self.findings)


def convert(
    src: PathLike,
    dst: PathLike,
    check: Union[bool, str] = True,
    *,
    from_format: Optional[str] = None,
    to: Optional[str] = None,
    force: bool = False,
    strict: bool = False,
    read_settings: Optional[Mapping[str, SettingValue]] = None,
    **settings: SettingValue,
) -> Conversion:
    """Converts the file ``src`` to ``dst`` as ``mbconv convert`` does, in the formats
    ``from_format`` and ``to`` name or the files' extensions (and the input's content) tell,
    with the writer's ``settings`` (and the reader's ``read_settings``). An output that exists
    is refused unless ``force``; ``strict`` refuses a dubious model or a lossy conversion.
    ``check=True`` checks the conversion by simulation as the command does (within a work
    budget, else the verdict is ``skipped``), ``check="full"`` without the budget
    (``--check``), ``check=False`` not at all. Warnings go through :mod:`warnings`."""
    return _convert(src, dst, check, from_format, to, force, strict, read_settings or {}, settings, emit=True)


def _convert(
    src: PathLike,
    dst: PathLike,
    check: Union[bool, str],
    from_format: Optional[str],
    to: Optional[str],
    force: bool,
    strict: bool,
    read_settings: Mapping[str, SettingValue],
    settings: Mapping[str, SettingValue],
    emit: bool,
) -> Conversion:
    how = _check_mode(check)
    native, files, report, checked = _native.convert(
        os.fspath(src),
        os.fspath(dst),
        from_format,
        to,
        _settings(read_settings, write=False),
        _settings(settings, write=True),
        force,
        strict,
        how,
    )
    found = findings_of(json.loads(report))
    if emit:
        warn(found, stacklevel=4)
    return Conversion(
        model=Model(native, found),
        files=tuple(os.fspath(f) for f in files),
        findings=tuple(found),
        check=_target(json.loads(checked), {}) if checked else None,
    )


@dataclass(frozen=True)
class BatchItem:
    """One file of :func:`convert_many`: the input, the output, and the :class:`Conversion`
    or the :class:`Error` that stopped it."""

    input: str
    output: str
    conversion: Optional[Conversion] = None
    error: Optional[Error] = None

    @property
    def ok(self) -> bool:
        """True when the file was converted."""
        return self.error is None


def _batch_item(raw: Tuple[Any, Any, Any, Any]) -> BatchItem:
    """A :class:`BatchItem` from what the extension hands back for one file."""
    src, dst, converted, error = raw
    conversion = None
    if converted is not None:
        native, files, report, checked = converted
        found = findings_of(json.loads(report))
        conversion = Conversion(
            model=Model(native, found),
            files=tuple(os.fspath(f) for f in files),
            findings=tuple(found),
            check=_target(json.loads(checked), {}) if checked else None,
        )
    return BatchItem(os.fspath(src), os.fspath(dst), conversion=conversion, error=error)


def convert_many(
    paths: Iterable[PathLike],
    to: str,
    out_dir: PathLike,
    check: Union[bool, str] = False,
    *,
    from_format: Optional[str] = None,
    recursive: bool = False,
    force: bool = False,
    strict: bool = False,
    read_settings: Optional[Mapping[str, SettingValue]] = None,
    progress: Progress = None,
    **settings: SettingValue,
) -> List[BatchItem]:
    """Converts every file of ``paths`` (a folder: the model files in it, with ``recursive``
    its sub-folders' too, kept as sub-folders of ``out_dir``) to the format ``to`` into
    ``out_dir``, as ``mbconv convert IN... --to F -o DIR`` does: in Rust, on every local core,
    with the GIL released. Outputs are named as the command names them. A file that fails does
    not stop the others: its item holds the :class:`Error`. ``check`` is as in
    :func:`convert` (default: no check). ``progress(done, total, item)`` is called as each file
    ends; ``progress=True`` shows a ``tqdm`` bar (``None``, the default: a bar when ``tqdm`` is
    installed and standard error is a terminal; ``False``: none). Findings are in each item's
    conversion; they are not issued as warnings. A folder with no model file, or standard
    input among ``paths``, raises :class:`ReadError` before anything is converted."""
    how = _check_mode(check)
    bar = _Bar(progress, f"convert to {to}", "file")

    def sink(done: int, total: int, raw: Tuple[Any, Any, Any, Any]) -> BatchItem:
        item = _batch_item(raw)
        bar(done, total, item)
        return item

    try:
        items: List[BatchItem] = _native.convert_many(
            [os.fspath(p) for p in paths],
            to,
            os.fspath(out_dir),
            sink,
            from_format,
            _settings(read_settings or {}, write=False),
            _settings(settings, write=True),
            force,
            strict,
            recursive,
            how,
        )
    finally:
        bar.close()
    return items


# --- simulation -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Trajectory:
    """A simulation's samples: ``t`` (n,), ``position`` (n, bodies, 3) and ``orientation``
    (n, bodies, 4, ``[w, x, y, z]``) of every body frame in the world, as numpy arrays;
    ``body_names`` in model order; ``kinetic`` and ``potential`` (n,) when asked for with
    ``energy=True``; ``steps`` taken."""

    t: Any
    position: Any
    orientation: Any
    body_names: Tuple[str, ...]
    kinetic: Any = None
    potential: Any = None
    steps: int = 0
    summary: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def simulate(
    model: Union[Model, PathLike],
    duration: float = 1.0,
    dt: Optional[float] = None,
    integrator: str = "semi-implicit-euler",
    rtol: float = 1e-8,
    atol: float = 1e-10,
    every: int = 1,
    energy: bool = False,
    joint_limits: bool = False,
    progress: Progress = None,
) -> Trajectory:
    """Simulates ``model`` from its initial state as ``mbconv simulate`` does: for
    ``duration`` seconds with step ``dt`` (default: the model's hint, else 1 ms) and
    ``integrator`` (``semi-implicit-euler``, ``rk4``, ``dopri5``, ``rosenbrock``; the last
    two adaptive within ``rtol`` and ``atol``), keeping every ``every``-th sample.
    ``progress(t, duration)`` is called at every hundredth of the duration simulated;
    ``progress=True`` shows a ``tqdm`` bar (see :func:`convert_many`). The GIL is released
    while Rust simulates. ``model`` may also be a path, read as :func:`read` reads it."""
    if not isinstance(model, Model):
        model = read(model)
    bar = _Bar(progress, f"simulate {model.name}", "s")
    try:
        t, position, orientation, names, energies, summary = _native.simulate(
            model._native, duration, dt, integrator, rtol, atol, every, energy, joint_limits, bar if bar.active else None
        )
    finally:
        bar.close()
    n, b = len(t) // 8, len(names)
    return Trajectory(
        t=_floats(t, n),
        position=_floats(position, n, b, 3),
        orientation=_floats(orientation, n, b, 4),
        body_names=tuple(names),
        kinetic=_floats(energies[0], n) if energies else None,
        potential=_floats(energies[1], n) if energies else None,
        steps=json.loads(summary)["steps"],
        summary=json.loads(summary),
    )


def main(argv: Optional[Iterable[str]] = None) -> int:
    """The ``mbconv`` command (the same as the Rust binary): runs it with ``argv`` (default:
    ``sys.argv``) and returns its exit code."""
    import sys

    args = list(sys.argv if argv is None else argv)
    if not args:
        args = ["mbconv"]
    args[0] = "mbconv"
    sys.stdout.flush()
    sys.stderr.flush()
    return int(_native.run_cli(args))


__all__ = [
    "BatchItem",
    "Body",
    "BodyErrors",
    "CheckError",
    "CheckReport",
    "Conversion",
    "Error",
    "ErrorFinding",
    "ErrorTrace",
    "Explanation",
    "Finding",
    "FindingWarning",
    "FormatInfo",
    "FormatLookupError",
    "InvalidModelError",
    "Joint",
    "Model",
    "ReadError",
    "Setting",
    "SettingError",
    "SimulationError",
    "StrictError",
    "TargetCheck",
    "Trajectory",
    "WarningFinding",
    "WriteError",
    "check",
    "convert",
    "convert_many",
    "formats",
    "main",
    "read",
    "read_string",
    "simulate",
    "xacro_settings",
]


def _console() -> None:
    """The entry point of the ``mbconv`` console script."""
    raise SystemExit(main())
