"""Issue 12's bad input for tensor-level programs: each is a pypto error with the source span and a
hint, raised by the pass (or the pass-boundary check) that finds it, never a traceback from inside
a pass and never a silently wrong kernel."""

from __future__ import annotations

import textwrap

import pytest

import pypto.language as pl
from pypto.ir.errors import PyptoError, VerificationError
from pypto.ir.function import Program
from pypto.languages.invariants import IncoreTileOps
from pypto.languages.outlined import outlined
from pypto.transform.base import ProgramPass
from pypto.transform.errors import PassError
from pypto.pipeline.default import builtin_passes

_T = "pl.Tensor[[64, 64], pl.FP32]"


def _program(body: str, params: str = f"a: {_T}, out: pl.Out[{_T}]", ret: str = _T) -> Program:
    src = textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class Bad:
            @pl.function
            def main(self, {params}) -> {ret}:
        {body}
                return out
    """).format(params=params, ret=ret, body=textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8))
    return pl.parse_program(src)


def _compile(program: Program) -> None:
    for p in builtin_passes():
        program = p(program)


def _raises(program: Program, cls: type[PyptoError], *fragments: str) -> PyptoError:
    with pytest.raises(cls) as err:
        _compile(program)
    text = str(err.value)
    for fragment in fragments:
        assert fragment in text
    return err.value


def _line(line: int, err: PassError) -> None:
    """The error points at ``line`` of the program source (the body starts on line 8)."""
    assert err.span.is_valid() and err.span.begin_line == line


def test_a_tensor_op_left_in_a_kernel_after_conversion_is_refused_at_that_pass() -> None:
    class LeavesTensorOps(ProgramPass):
        """A conversion that claims IncoreTileOps but converts nothing."""

        source = outlined
        produces = frozenset({IncoreTileOps})

        def run(self, program: Program) -> Program:
            return program

    program = _program("""
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.exp(a)
            out[:] = y
    """)
    for p in builtin_passes()[:10]:  # the front passes and the three outlining passes
        program = p(program)
    with pytest.raises(VerificationError) as err:
        LeavesTensorOps()(program)
    text = str(err.value)
    assert "(after pass LeavesTensorOps)" in text
    assert "IncoreTileOps TENSOR_OP_IN_KERNEL in 'main_incore_0': tensor.exp in a InCore function" in text
    assert "(convert it to tile ops)" in text
    assert [(v.span.begin_line, v.span.is_valid()) for v in err.value.violations][0] == (9, True)


def test_a_tensor_op_without_a_tile_form_is_refused_by_the_conversion() -> None:
    err = _raises(_program("""
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.part_max(a, a)
            out[:] = y
    """), PassError, "ConvertTensorToTileOps: tensor.part_max has no tile lowering", "hint: ")
    _line(9, err)


def test_a_tile_op_beside_kernel_scopes_is_refused_at_the_pipeline_input() -> None:
    program = _program("""
        t: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0], [64, 64])
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.exp(a)
            out[:] = y
    """)
    err = _raises(program, VerificationError, "(input of pass InlineFunctions)",
                  "TileOpsInKernels TILE_OP_IN_OPAQUE in 'main': tile op tile.load in Opaque function 'main', host "
                  "code around its kernel scopes (tile ops run in kernels: put them in a "
                  "pl.at(level=pl.Level.CORE_GROUP) scope)")
    [violation] = err.violations
    assert violation.span.is_valid() and violation.span.begin_line == 8


def test_a_tile_op_directly_in_a_hierarchy_scope_is_refused_at_the_pipeline_input() -> None:
    # A hierarchy scope is outlined into host code, not a kernel: the op is reported in the user's function.
    program = _program("""
        with pl.at(level=pl.Level.HOST):
            t: pl.Tile[[64, 64], pl.FP32] = pl.load(a, [0, 0], [64, 64])
            out = pl.store(t, [0, 0], out)
    """)
    err = _raises(program, VerificationError, "(input of pass InlineFunctions)",
                  "TileOpsInKernels TILE_OP_IN_OPAQUE in 'main': tile ops tile.load, tile.store in Opaque function "
                  "'main', host code around its kernel scopes")
    [violation] = err.violations
    assert violation.span.begin_line == 9


def test_a_slice_of_a_tile_with_a_non_foldable_lower_bound_is_refused() -> None:
    program = _program("""
        with pl.at(level=pl.Level.CORE_GROUP):
            e = pl.exp(a)
            y = e[n : 16, :]
            out[:] = y
    """, params=f"a: {_T}, n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        ret="pl.Tensor[[16, 64], pl.FP32]")
    err = _raises(program, PassError, "ConvertTensorToTileOps: the slice shape 16 - n is not a constant",
                  "hint: give the slice bounds a constant difference")
    _line(10, err)


def test_split_together_with_split_aiv_is_refused_by_the_outliner() -> None:
    program = _program("""
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.exp(a)
                out[:] = y
    """)
    err = _raises(program, PassError, "OutlineIncoreScopes: pl.split(UP_DOWN) on a pl.at scope that also holds "
                  "pl.split_aiv regions")
    assert err.hint is not None and err.hint.startswith("split the vector work either automatically (pl.split) or by hand")
    _line(9, err)  # the split_aiv region


@pytest.mark.parametrize("da, db", [("FP32", "INT8"), ("INT16", "INT16")])
def test_a_matmul_whose_operand_dtypes_have_no_cube_form_is_refused(da: str, db: str) -> None:
    acc = "FP32" if da == "FP32" else "INT32"
    program = _program(f"""
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.matmul(a, b, out_dtype=pl.{acc})
            out[:] = y
    """, params=f"a: pl.Tensor[[64, 64], pl.{da}], b: pl.Tensor[[64, 64], pl.{db}], out: pl.Out[pl.Tensor[[64, 64], pl.{acc}]]",
        ret=f"pl.Tensor[[64, 64], pl.{acc}]")
    err = _raises(program, PassError, f"ConvertTensorToTileOps: tensor.matmul of {da} x {db} operands has no cube form",
                  "INT8, FP16, BF16, FP32", "hint: pl.cast the operands")
    _line(9, err)


def test_a_matmul_of_cube_dtypes_still_compiles() -> None:
    program = _program("""
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.matmul(a, b, out_dtype=pl.FP32)
            out[:] = y
    """, params="a: pl.Tensor[[64, 64], pl.BF16], b: pl.Tensor[[64, 64], pl.BF16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]")
    _compile(program)


def test_a_whole_kernel_tensor_with_a_dynamic_inner_dimension_is_refused_at_the_conversion() -> None:
    """Issue 29 item 5: blocks of a [16, K] tensor compile (tests/sim/test_dynamic_views.py); the whole tensor
    as one tile cannot, as a tile's shape is static: the error names the extent and the blocked form."""
    program = pl.parse_program(textwrap.dedent("""
        import pypto.language as pl

        K = pl.dynamic("K")


        @pl.program
        class DynCols:
            @pl.function
            def main(self, x: pl.Tensor[[16, K], pl.FP32],
                     out: pl.Out[pl.Tensor[[16, K], pl.FP32]]) -> pl.Tensor[[16, K], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out = pl.assemble(out, pl.exp(x), [0, 0])
                return out
    """))
    err = _raises(program, PassError)
    assert err.message == (
        "ConvertTensorToTileOps: the tensor shape K is not a constant, but a tile needs a static shape"
    )
    assert err.hint == "work on static blocks of a dynamic tensor, e.g. x[i * 32 : i * 32 + 32, :]"
    _line(10, err)


def test_a_valid_extent_computed_from_a_symbol_is_refused_at_its_materialization() -> None:
    """``valid_shape=[M + 1, 64]``: a caller passes a valid extent (tests/sim/test_dynamic_views.py), not the M
    it is computed from, so MaterializeValidShapeSymbols refuses it at the parameter."""
    program = pl.parse_program(textwrap.dedent("""
        import pypto.language as pl

        M = pl.dynamic("M")


        @pl.program
        class ValidRows:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self,
                  x: pl.Tensor[[64, 64], pl.FP32,
                               pl.TensorView(valid_shape=[M + 1, 64], stride=[], layout=pl.TensorLayout.ND)],
                  out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                t = pl.load(x, [0, 0], [64, 64])
                out = pl.store(pl.exp(t), [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64, 64], pl.FP32],
                     out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                out = self.k(x, out)
                return out
    """))
    err = _raises(program, PassError)
    assert err.message == (
        "MaterializeValidShapeSymbols: 'k' takes 'x' whose valid extent M + 1 (axis 0) is computed from M: a caller "
        "passes a valid extent, not what it is computed from"
    )
    assert err.hint == "name the extent itself, e.g. valid_shape=[M, ...], and compute its value in the caller"
    _line(11, err)


def test_a_kernel_dimension_computed_from_a_symbol_is_refused_at_the_conversion() -> None:
    """A kernel reads a dynamic dimension off its argument's shapes: ``K * 2`` has no K to read."""
    program = pl.parse_program(textwrap.dedent("""
        import pypto.language as pl

        K = pl.dynamic("K")


        @pl.program
        class Doubled:
            @pl.function
            def main(self, x: pl.Tensor[[16, K * 2], pl.FP32],
                     out: pl.Out[pl.Tensor[[16, K * 2], pl.FP32]]) -> pl.Tensor[[16, K * 2], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.slice(x, [16, 64], [0, 0])
                    out = pl.assemble(out, pl.exp(t), [0, 0])
                return out
    """))
    err = _raises(program, PassError)
    assert err.message == (
        "ConvertTensorToTileOps: kernel 'main_incore_0' takes 'x' of shape [16, K * 2], whose dimension K * 2 is "
        "computed from K: a kernel reads a dynamic dimension off its argument, so it must be a plain pl.dynamic symbol"
    )
    assert err.hint == 'name the dimension itself, e.g. D = pl.dynamic("D") and pl.Tensor[[..., D], ...] for K * 2'
    _line(10, err)


def test_a_valid_extent_of_the_entry_is_refused_at_its_materialization() -> None:
    """The runtime passes the entry arrays, never a valid region: M would have no value."""
    program = pl.parse_program(textwrap.dedent("""
        import pypto.language as pl

        M = pl.dynamic("M")


        @pl.program
        class EntryValid:
            @pl.function
            def main(self,
                     x: pl.Tensor[[32, 64], pl.FP32,
                                  pl.TensorView(valid_shape=[M, 64], stride=[], layout=pl.TensorLayout.ND)],
                     out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    out = pl.assemble(out, pl.exp(x), [0, 0])
                return out
    """))
    err = _raises(program, PassError)
    assert err.message == (
        "MaterializeValidShapeSymbols: 'main' takes 'x' whose valid extent M no call gives: it is called by the "
        "runtime, which passes arrays, not valid regions"
    )
    assert err.hint == ("take the extent as a scalar parameter (m: pl.Scalar[pl.INDEX]) and narrow a slice of 'x' "
                        "with it: pl.slice(..., valid_shape=[...])")
    _line(11, err)
