"""The coverage report: what each target lacks, kept as a snapshot so every change shows in review."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pypto.codegen import coverage as cov
from pypto.codegen.target import PTO, TARGETS


def test_what_each_target_lacks(snapshot) -> None:
    assert cov.report() == snapshot


def test_the_module_prints_the_report() -> None:
    run = subprocess.run([sys.executable, "-m", "pypto.codegen.coverage"], capture_output=True, text=True, check=True)
    assert run.stdout == cov.report()


def test_each_target_counts_only_what_it_can_meet() -> None:
    kernel_ops = set(PTO.needed_ops())
    assert {"tile.add", "tile.load", "tensor.read"} <= kernel_ops and "tensor.add" not in kernel_ops
    orchestration = TARGETS[2]
    assert orchestration.name == "orchestration"
    assert {"tensor.create", "tensor.slice", "tensor.transpose"} <= set(orchestration.needed_ops())
    assert "tensor.add" not in orchestration.needed_ops() and "tile.add" not in orchestration.needed_ops()
    assert "BreakStmt" not in {c.__name__ for c in PTO.needed_nodes()}
    assert "Submit" in {c.__name__ for c in orchestration.needed_nodes()}


def test_ops_the_dialect_keeps_out_of_kernels_need_no_kernel_rule() -> None:
    # FlattenTileNdTo2D expands batched matmuls; ConvertTensorToTileOps folds tensor.dim and refuses
    # tensor.alloc: the runtime dialect forbids all three in kernels (TileOps2D, IncoreTileOps).
    forbidden = {"tile.batch_matmul", "tile.batch_matmul_acc", "tensor.dim", "tensor.alloc"}
    assert forbidden <= PTO.forbidden_ops()
    assert forbidden.isdisjoint(PTO.needed_ops())
    assert "tile.matmul" in PTO.needed_ops() and "tile.matmul" not in PTO.forbidden_ops()


def test_an_emitter_is_found_once_its_module_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "toy_pto_emitter.py").write_text(
        "from pypto.codegen.base import Emitter, Rules\n"
        "from pypto.codegen.pto_ops import Dps\n"
        "from pypto.codegen.target import PTO\n"
        "from pypto.ir.stmt import SeqStmts\n\n\n"
        "class ToyPto(Emitter):\n"
        "    target = PTO\n"
        "    rules = Rules('toy-pto')\n\n"
        "    @rules.register(SeqStmts)\n"
        "    def _seq(self, node): ...\n\n"
        "    @rules.op(Dps)\n"
        "    def _dps(self, call, rule): ...\n"
    )
    (tmp_path / "broken_emitter.py").write_text("import toy_module_that_is_missing\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cov.EMITTERS, "pto", "toy_pto_emitter:ToyPto")
    emitter = cov.load_emitter(PTO)
    assert emitter is not None and emitter.__name__ == "ToyPto"
    found = cov.coverage(PTO, emitter)
    before = cov.coverage(PTO, None)
    assert found.emitter == "ToyPto"
    # Call is the base's rule: op calls go through the table.
    assert set(before.missing_nodes) - set(found.missing_nodes) == {"SeqStmts", "Call"}
    assert "tile.add" not in found.missing_ops and "tile.load" in found.missing_ops  # Transfer has no rule

    monkeypatch.setitem(cov.EMITTERS, "pto", "pypto.codegen.not_written_yet:Nothing")
    assert cov.load_emitter(PTO) is None
    monkeypatch.setitem(cov.EMITTERS, "pto", "broken_emitter:Broken")
    with pytest.raises(ModuleNotFoundError, match="toy_module_that_is_missing"):
        cov.load_emitter(PTO)


def test_every_node_kind_the_dialects_allow_has_a_rule() -> None:
    # The consumed dialect (describe(runtime), describe(synced)) lists only what the emitters print.
    for target in TARGETS:
        assert cov.coverage(target, cov.load_emitter(target)).missing_nodes == (), target.name
