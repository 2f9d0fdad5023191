"""The artifact tree a compile writes, as read back from its ``kernel_config.py`` (docs/codegen.md#kernel-config).

``kernel_config.py`` imports ``simpler.task_interface`` for its direction tags, so loading it needs
simpler installed; the tags are read back by name (``IN``, ``OUT``, ``INOUT``).
"""

from __future__ import annotations

import enum
import runpy
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from .errors import ArtifactError


class Direction(enum.Enum):
    """How a task reads or writes a tensor argument."""

    IN = "IN"
    OUT = "OUT"
    INOUT = "INOUT"

    @property
    def writes(self) -> bool:
        """True when the task writes the tensor (its contents are copied back to the caller)."""
        return self is not Direction.IN


def _direction(tag: object) -> Direction:
    name = getattr(tag, "name", tag)
    try:
        return Direction[str(name)]
    except KeyError:
        raise ValueError(f"unknown direction {tag!r} (expected IN, OUT or INOUT)") from None


class _Entry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    source: Path
    signature: tuple[Direction, ...] = ()

    @field_validator("signature", mode="before")
    @classmethod
    def _directions(cls, value: Any) -> tuple[Direction, ...]:
        return tuple(_direction(tag) for tag in value)


_E = TypeVar("_E", bound=_Entry)


class OrchestrationEntry(_Entry):
    """``ORCHESTRATION``: the orchestration source, its entry function and tensor directions."""

    function_name: str = "aicpu_orchestration_entry"


class KernelEntry(_Entry):
    """One ``KERNELS`` entry: a kernel id as submitted by the orchestration, its source and core."""

    func_id: int
    core_type: Literal["aiv", "aic"]
    name: str = ""

    @property
    def label(self) -> str:
        """The kernel's name, or its source file's stem when the entry has none."""
        return self.name or self.source.stem


class ArtifactTree(BaseModel):
    """An artifact tree: ``kernel_config.py`` with the orchestration and kernels it names."""

    model_config = ConfigDict(frozen=True)

    root: Path
    runtime: str
    aicpu_thread_num: int = 0
    orchestration: OrchestrationEntry
    kernels: tuple[KernelEntry, ...]


def load_artifacts(root: str | Path) -> ArtifactTree:
    """Read ``root/kernel_config.py``; ``ArtifactError`` naming the file and what is wrong."""
    root = Path(root).resolve()
    config = root / "kernel_config.py"
    if not config.is_file():
        raise ArtifactError(
            f"{config} does not exist", "pass the output folder of a compile (it holds kernel_config.py)"
        )
    try:
        namespace = runpy.run_path(str(config))
    except Exception as err:  # a broken config is bad input: report it, whatever it raised
        raise ArtifactError(f"{config} failed to load: {type(err).__name__}: {err}") from err
    missing = [key for key in ("RUNTIME_CONFIG", "ORCHESTRATION", "KERNELS") if key not in namespace]
    if missing:
        raise ArtifactError(f"{config} does not define {', '.join(missing)}", "see docs/codegen.md#kernel-config")
    runtime_config = namespace["RUNTIME_CONFIG"]
    try:
        tree = ArtifactTree(
            root=root,
            runtime=runtime_config.get("runtime", "tensormap_and_ringbuffer"),
            aicpu_thread_num=runtime_config.get("aicpu_thread_num", 0),
            orchestration=OrchestrationEntry.model_validate(namespace["ORCHESTRATION"]),
            kernels=tuple(KernelEntry.model_validate(entry) for entry in namespace["KERNELS"]),
        )
    except (ValidationError, AttributeError, TypeError) as err:
        raise ArtifactError(f"{config} is malformed: {err}", "see docs/codegen.md#kernel-config") from err
    tree = tree.model_copy(
        update={
            "orchestration": _resolved(tree.orchestration, root),
            "kernels": tuple(_resolved(kernel, root) for kernel in tree.kernels),
        }
    )
    ids = [kernel.func_id for kernel in tree.kernels]
    if len(set(ids)) != len(ids):
        raise ArtifactError(f"{config} lists a func_id twice: {sorted(ids)}")
    return tree


def _resolved(entry: _E, root: Path) -> _E:
    source = entry.source if entry.source.is_absolute() else root / entry.source
    if not source.is_file():
        raise ArtifactError(f"{source} (named in {root / 'kernel_config.py'}) does not exist")
    return entry.model_copy(update={"source": source})
