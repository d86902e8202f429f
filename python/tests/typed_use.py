"""A typed use of the API, checked by mypy --strict (test_types.py); not a test itself."""

from __future__ import annotations

from typing import List, Optional

import mbconv


def use(path: str) -> float:
    model: mbconv.Model = mbconv.read(path, format="urdf", lenient=True)
    names: List[str] = [b.name for b in model.bodies]
    dofs: int = sum(j.dof for j in model.joints)
    g: Optional[tuple[float, float, float]] = model.gravity
    text: str = model.to_string("mjcf", angles="degrees")
    findings: List[mbconv.Finding] = model.write("out.sdf")
    report: mbconv.CheckReport = mbconv.check(model, via=["mjcf"], duration=0.5)
    verdict: str = report.targets[0].verdict
    trajectory: mbconv.Trajectory = mbconv.simulate(model, 1.0, 1e-3, integrator="rk4")
    conversion: mbconv.Conversion = mbconv.convert(path, "out.xml", check=False, force=True)
    try:
        mbconv.read_string(text, "mjcf")
    except mbconv.ReadError as e:
        line: Optional[int] = e.line
        del line
    del names, dofs, g, findings, verdict, conversion
    return float(trajectory.t[-1])
