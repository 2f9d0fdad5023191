"""What a call returns when the entry orchestration returns tensors it creates (ExportEntryResults):
the interpreter side, the compiled signature and the compile errors for what no call can give back.
The simulator side is tests/sim/test_entry_results_sim.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from entry_result_programs import CreatedInline, CreatedMixed, CreatedResult

import pypto.language as pl
from pypto import ir
from pypto.compiled import CompiledProgram
from pypto.language.parser.diagnostics import ParserTypeError
from pypto.passes import PassError

T16 = pl.Tensor[[16, 16], pl.FP32]
M = pl.dynamic("M")


def _a() -> np.ndarray:
    return np.arange(256, dtype=np.float32).reshape(16, 16)


def test_a_created_tensor_returned_is_what_interpret_returns(tmp_path: Path) -> None:
    compiled = ir.compile(CreatedResult, output_dir=tmp_path / "out")
    np.testing.assert_array_equal(compiled.interpret(_a()), 2 * _a())
    np.testing.assert_array_equal(compiled.interpret(a=_a()), 2 * _a())
    assert compiled.param_names == ["a"] and compiled.output_indices == []


def test_the_entry_gets_an_out_parameter_for_it(tmp_path: Path) -> None:
    compiled = ir.compile(CreatedResult, output_dir=tmp_path / "out")
    main = compiled.final_program.get_function("main")
    assert [p.name_hint for p in main.params] == ["a", "out"]
    assert [d.name for d in main.param_directions] == ["In", "Out"]
    assert dict(main.attrs) == {"auto_scope": False, "created_results": 1, "results": [1]}
    text = (tmp_path / "out" / "orchestration" / "main.cpp").read_text()
    assert "const ChipTensor& ext_out = orch_args.tensor(1).ref();" in text
    assert "alloc_tensors" not in text  # the call allocates it, not the runtime


def test_the_signature_survives_from_dir(tmp_path: Path) -> None:
    ir.compile(CreatedResult, output_dir=tmp_path / "out")
    meta = json.loads((tmp_path / "out" / "compiled_meta.json").read_text())
    assert [p["name"] for p in meta["params"]] == ["a", "out"]
    assert (meta["created_results"], meta["results"]) == (1, [1])
    main = CompiledProgram.from_dir(tmp_path / "out").final_program.get_function("main")
    assert (main.attrs.created_results, main.attrs.results) == (1, [1])


def test_a_kernel_scope_storing_into_a_created_tensor(tmp_path: Path) -> None:
    compiled = ir.compile(CreatedInline, output_dir=tmp_path / "out")
    np.testing.assert_array_equal(compiled.interpret(_a()), _a() + 1)


def test_created_tensors_beside_an_out_parameter_come_in_return_order(tmp_path: Path) -> None:
    """y is made in a manual scope, z after a loop; o is the Out parameter between them."""
    compiled = ir.compile(CreatedMixed, output_dir=tmp_path / "out")
    y, o, z = compiled.interpret(_a())  # the return form: o allocated too
    np.testing.assert_array_equal(y, 2 * _a())
    np.testing.assert_array_equal(o, 4 * _a())
    np.testing.assert_array_equal(z, 5 * _a())
    given = np.zeros((16, 16), np.float32)
    y2, o2, z2 = compiled.interpret(_a(), given)  # every parameter given: o is the caller's array
    assert o2 is given
    np.testing.assert_array_equal(given, 4 * _a())
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(z2, z)
    main = compiled.final_program.get_function("main")
    assert [p.name_hint for p in main.params] == ["a", "o", "y", "z"]
    assert main.attrs.results == [2, 1, 3]


def test_the_final_program_interprets_without_the_created_parameters(tmp_path: Path) -> None:
    from pypto.interp import run

    compiled = ir.compile(CreatedMixed, output_dir=tmp_path / "out")
    result = run(compiled.final_program, _a(), np.zeros((16, 16), np.float32), entry="main")
    assert set(result.outputs) == {"o"}
    np.testing.assert_array_equal(result.returns[2], 5 * _a())


def test_a_jit_function_returns_the_tensor_it_creates() -> None:
    @pl.jit
    def double(a: pl.Tensor) -> pl.Tensor[[16, 16], pl.FP32]:
        out = pl.create_tensor([16, 16], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 16])
            out = pl.store(pl.mul(t, 2.0), [0, 0], out)
        return out

    compiled = double.compile(_a())
    assert compiled.final_program.get_function("double").attrs.results == [1]
    np.testing.assert_array_equal(compiled.interpret(_a()), 2 * _a())


def test_a_jit_function_returning_a_created_tensor_declares_its_type() -> None:
    """As in the established @pl.jit, only a parameter's type (or the first Out's) is inferred."""

    @pl.jit
    def double(a: pl.Tensor):
        out = pl.create_tensor([16, 16], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.mul(pl.load(a, [0, 0], [16, 16]), 2.0), [0, 0], out)
        return out

    with pytest.raises(ParserTypeError, match="returns 1 value.s. but declares no return type"):
        double.compile(_a())


def _refused(program: ir.Program, tmp_path: Path) -> PassError:
    with pytest.raises(PassError) as err:
        ir.compile(program, output_dir=tmp_path / "out")
    return err.value


def test_returning_an_in_parameter_is_refused(tmp_path: Path) -> None:
    @pl.program
    class ReturnsInput:
        @pl.function(type=pl.FunctionType.InCore)
        def double(self, a: T16, out: pl.Out[T16]) -> T16:
            out = pl.store(pl.mul(pl.load(a, [0, 0], [16, 16]), 2.0), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: T16, o: pl.Out[T16]) -> T16:
            o = self.double(a, o)
            return a

    err = _refused(ReturnsInput, tmp_path)
    assert err.message == "ExportEntryResults: 'main' returns its In parameter 'a', which a call cannot give back"
    assert err.hint.startswith("the caller already has 'a'")
    assert err.span.is_valid()


def test_returning_a_view_of_a_created_tensor_is_refused(tmp_path: Path) -> None:
    @pl.program
    class ReturnsView:
        @pl.function(type=pl.FunctionType.InCore)
        def double(self, a: T16, out: pl.Out[T16]) -> T16:
            out = pl.store(pl.mul(pl.load(a, [0, 0], [16, 16]), 2.0), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: T16) -> pl.Tensor[[8, 16], pl.FP32]:
            out = pl.create_tensor([16, 16], dtype=pl.FP32)
            out = self.double(a, out)
            v = pl.slice(out, [8, 16], [0, 0])
            return v

    err = _refused(ReturnsView, tmp_path)
    assert err.message == (
        "ExportEntryResults: 'main' returns 'v', a view of another tensor, which a call cannot give back"
    )
    assert err.hint.startswith("return the whole tensor")


def test_returning_a_scalar_is_refused(tmp_path: Path) -> None:
    @pl.program
    class ReturnsScalar:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: T16, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            m = n + 1
            return m

    err = _refused(ReturnsScalar, tmp_path)
    assert err.message == "ExportEntryResults: 'main' returns the scalar 'm', which a call cannot give back"
    assert "pl.Out tensor" in err.hint


def test_a_created_tensor_of_run_time_shape_is_refused(tmp_path: Path) -> None:
    @pl.program
    class RunTimeShape:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: T16) -> pl.Tensor[[M, 16], pl.FP32]:
            out = pl.create_tensor([M, 16], dtype=pl.FP32)
            return out

    err = _refused(RunTimeShape, tmp_path)
    assert err.message == (
        "ExportEntryResults: 'main' returns 'out', created with a shape computed at run time, "
        "which a call cannot allocate"
    )
    assert err.hint == "take it as a parameter instead: `out: pl.Out[pl.Tensor[...]]`, and return that"


def test_one_of_two_created_tensors_chosen_by_an_if_is_refused(tmp_path: Path) -> None:
    @pl.program
    class ChosenByIf:
        @pl.function(type=pl.FunctionType.InCore)
        def double(self, a: T16, out: pl.Out[T16]) -> T16:
            out = pl.store(pl.mul(pl.load(a, [0, 0], [16, 16]), 2.0), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: T16, n: pl.Scalar[pl.INDEX]) -> T16:
            x = pl.create_tensor([16, 16], dtype=pl.FP32)
            y = pl.create_tensor([16, 16], dtype=pl.FP32)
            if n > 0:
                r = self.double(a, x)
            else:
                r = self.double(a, y)
            return r

    err = _refused(ChosenByIf, tmp_path)
    assert err.message.startswith("ExportEntryResults: 'main' returns 'r', whose buffer is neither a parameter")


def test_a_loop_result_rebound_to_a_tensor_created_in_the_loop_is_refused(tmp_path: Path) -> None:
    """Only the last iteration's tensor holds the value; the loop's initial tensor is never written."""

    @pl.program
    class Rebound:
        @pl.function(type=pl.FunctionType.InCore)
        def double(self, a: T16, out: pl.Out[T16]) -> T16:
            out = pl.store(pl.mul(pl.load(a, [0, 0], [16, 16]), 2.0), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: T16) -> T16:
            out = pl.create_tensor([16, 16], dtype=pl.FP32)
            for i in pl.range(2):
                t = pl.create_tensor([16, 16], dtype=pl.FP32)
                t = self.double(a, t)
                out = t
            return out

    err = _refused(Rebound, tmp_path)
    assert err.message == (
        "ExportEntryResults: 'main' returns 'out', a loop result rebound to another tensor in the loop, "
        "which a call cannot give back"
    )
    assert (
        err.hint == "have the loop write into the tensor it starts from and yield that (`out = self.kernel(..., out)`)"
    )
    assert err.span is not None and err.span.begin_line == Rebound.get_function("main").span.begin_line + 6


def _accumulating(init: float) -> ir.Program:
    @pl.program
    class Accumulates:
        @pl.function(type=pl.FunctionType.InCore)
        def accumulate(self, a: T16, acc: pl.InOut[T16]) -> T16:
            acc = pl.store(pl.add(pl.load(a, [0, 0], [16, 16]), pl.load(acc, [0, 0], [16, 16])), [0, 0], acc)
            return acc

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: T16) -> T16:
            acc = pl.create_tensor([16, 16], dtype=pl.FP32, init_value=init)
            acc = self.accumulate(a, acc)
            return acc

    return Accumulates


def test_a_zero_initialised_created_tensor_is_what_the_call_allocates(tmp_path: Path) -> None:
    compiled = ir.compile(_accumulating(0.0), output_dir=tmp_path / "out")
    assert compiled.final_program.get_function("main").attrs.results == [1]
    np.testing.assert_array_equal(compiled.interpret(_a()), _a())


def test_another_initial_value_is_refused(tmp_path: Path) -> None:
    err = _refused(_accumulating(1.0), tmp_path)
    assert err.message == (
        "ExportEntryResults: 'main' returns 'acc', created with the initial value 1.0, "
        "which a call, allocating it zero-filled, cannot give"
    )
    assert err.hint.startswith("take it as a parameter instead: `acc: pl.InOut[")
