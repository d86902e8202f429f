"""A large corpus converted on a Ray cluster: :func:`convert_many` maps one conversion per file
over Ray tasks and gathers the reports, as :func:`mbconv.convert_many` does on the local cores.

Ray (``pip install ray``) is imported only when :func:`convert_many` runs; the rest of
``mbconv`` never needs it. Ray schedules the tasks; this module only plans the files (as
``mbconv convert IN... --to F -o DIR`` plans them) and collects the results in input order.

>>> import ray, mbconv.ray                                           # doctest: +SKIP
>>> ray.init(num_cpus=2)                                             # doctest: +SKIP
>>> items = mbconv.ray.convert_many(["corpus/urdf"], to="mjcf", out_dir="out")  # doctest: +SKIP
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from . import BatchItem, Error, PathLike, Progress, SettingValue, WriteError, _Bar, _check_mode, _convert, _native, _settings


def _convert_one(
    src: str,
    dst: str,
    to: str,
    check: Union[bool, str],
    from_format: Optional[str],
    force: bool,
    strict: bool,
    read_settings: Dict[str, str],
    settings: Dict[str, str],
) -> BatchItem:
    """One file, in a Ray task: converted, or the error that stopped it."""
    try:
        os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    except OSError as e:
        message = f"cannot create the directory of {dst}: {e.strerror or e}"
        return BatchItem(src, dst, error=WriteError(message, code="mbconv::batch", file=dst))
    try:
        done = _convert(src, dst, check, from_format, to, force, strict, read_settings, settings, emit=False)
        return BatchItem(src, dst, conversion=done)
    except Error as e:
        return BatchItem(src, dst, error=e)


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
    num_cpus: float = 1,
    **settings: SettingValue,
) -> List[BatchItem]:
    """Converts every file of ``paths`` (a folder: its model files, with ``recursive`` its
    sub-folders' too) to the format ``to`` into ``out_dir``, one Ray task per file (each
    asking Ray for ``num_cpus`` CPUs), and returns one :class:`mbconv.BatchItem` per file in
    input order: the same arguments, outputs and items as :func:`mbconv.convert_many`.

    Ray must be installed; when ``ray.init`` has not been called, it is called with no
    arguments (a local instance on this machine's cores, or the cluster ``RAY_ADDRESS``
    names). The workers need ``mbconv`` installed and must see the input files and
    ``out_dir`` at the same paths (a shared file system on a cluster of several machines).
    ``progress(done, total, item)`` is called on this process as each task's result arrives;
    ``progress=True`` shows a ``tqdm`` bar."""
    _check_mode(check)  # a bad value is refused before Ray starts
    import ray

    if not ray.is_initialized():
        ray.init()
    how = "full" if check == "full" else (True if check else False)
    plan = _native.plan_batch([os.fspath(p) for p in paths], to, os.fspath(out_dir), recursive)
    reads = _settings(read_settings or {}, write=False)
    writes = _settings(settings, write=True)
    task = ray.remote(num_cpus=num_cpus)(_convert_one)
    items: List[Optional[BatchItem]] = [None] * len(plan)
    pending: Dict[Any, int] = {}
    for i, (src_path, dst_path, clash) in enumerate(plan):
        src, dst = os.fspath(src_path), os.fspath(dst_path)
        if clash is not None:
            items[i] = BatchItem(src, dst, error=WriteError(clash, code="mbconv::batch", file=src))
            continue
        ref = task.remote(src, dst, to, how, from_format, force, strict, reads, writes)
        pending[ref] = i
    bar = _Bar(progress, f"convert to {to} on Ray", "file")
    done = len(plan) - len(pending)
    try:
        waiting: List[Any] = list(pending)
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=1)
            for ref in ready:
                item: BatchItem = ray.get(ref)
                items[pending[ref]] = item
                done += 1
                bar(done, len(plan), item)
    finally:
        bar.close()
    return [item for item in items if item is not None]


__all__: Tuple[str, ...] = ("convert_many",)
