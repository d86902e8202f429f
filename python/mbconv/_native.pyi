"""Types of the extension module `mbconv._native` (the Rust crate `mbconv-python`)."""

from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, final

__all__ = ["__version__", "Model", "check", "convert", "convert_many", "formats", "plan_batch", "read", "read_string", "run_cli", "simulate", "xacro_settings"]
__version__: str

@final
class Model:
    @property
    def name(self) -> str: ...
    @property
    def gravity(self) -> Optional[Tuple[float, float, float]]: ...
    @property
    def time_step(self) -> Optional[float]: ...
    def summary_json(self) -> str: ...
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(text: str, name: str) -> Tuple[Model, str]: ...
    def write(
        self, path: str, format: Optional[str] = None, write_settings: Dict[str, str] = ...
    ) -> Tuple[List[Path], str]: ...
    def to_text(self, format: str, write_settings: Dict[str, str] = ...) -> Tuple[str, str]: ...

def read(path: str, format: Optional[str] = None, read_settings: Dict[str, str] = ...) -> Tuple[Model, str]: ...
def read_string(
    text: str, format: str, read_settings: Dict[str, str] = ..., name: Optional[str] = None
) -> Tuple[Model, str]: ...
def convert(
    input: str,
    output: str,
    from_format: Optional[str] = None,
    to_format: Optional[str] = None,
    read_settings: Dict[str, str] = ...,
    write_settings: Dict[str, str] = ...,
    force: bool = False,
    strict: bool = False,
    check: str = "auto",
) -> Tuple[Model, List[Path], str, Optional[str]]: ...
def check(
    model: Model,
    name: str,
    via: List[str],
    duration: float,
    dt: Optional[float] = None,
    integrator_name: Optional[str] = None,
    tol_pos: float = 1e-6,
    tol_rot: float = 1e-6,
    progress: Optional[Callable[[int, int, str], object]] = None,
) -> Tuple[str, List[Tuple[str, Optional[str], bytes, bytes, bytes, List[str], bytes, bytes]]]: ...
def simulate(
    model: Model,
    duration: float,
    dt: Optional[float] = None,
    integrator_name: str = "semi-implicit-euler",
    rtol: float = 1e-8,
    atol: float = 1e-10,
    every: int = 1,
    energy: bool = False,
    joint_limits: bool = False,
    progress: Optional[Callable[[float, float], object]] = None,
) -> Tuple[bytes, bytes, bytes, List[str], Optional[Tuple[bytes, bytes]], str]: ...
def convert_many(
    inputs: List[str],
    to: str,
    out_dir: str,
    sink: Callable[[int, int, Tuple[Path, Path, Optional[Tuple[Model, List[Path], str, Optional[str]]], Optional[BaseException]]], Any],
    from_format: Optional[str] = None,
    read_settings: Dict[str, str] = ...,
    write_settings: Dict[str, str] = ...,
    force: bool = False,
    strict: bool = False,
    recursive: bool = False,
    check: str = "none",
) -> List[Any]: ...
def formats() -> str: ...
def xacro_settings() -> str: ...
def plan_batch(inputs: List[str], to: str, out_dir: str, recursive: bool) -> List[Tuple[Path, Path, Optional[str]]]: ...
def run_cli(argv: List[str]) -> int: ...
