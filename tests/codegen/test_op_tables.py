"""The per-target op tables: migrated mnemonics, spellings against the specs and the real headers."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from pypto import ir
from pypto.codegen import cce_ops, orchestration_ops, pto_ops
from pypto.codegen.cce_ops import CCE_OPS, DST, Choice, Const, Instr, Intrinsic
from pypto.codegen.op_table import OpTable, bound_parameters, pipe_name
from pypto.codegen.orchestration_ops import ORCHESTRATION_OPS
from pypto.codegen.pto_ops import PTO_OPS, Attr, Dps
from pypto.codegen.target import TARGETS
from pypto.ir import op_registry
from pypto.ir.enums import PipeType
from pypto.ir.errors import IRValueError

SHARED = Path(__file__).resolve().parents[3] / "shared" / "third_party"
PTO_ISA_BUNDLE = Path(os.environ.get("PYPTO_PTO_ISA_BUNDLE", SHARED / "pto-isa.bundle"))
SIMPLER = Path(os.environ.get("PYPTO_SIMPLER_DIR", SHARED / "simpler"))

# The PTO mnemonic every op entry of the registry carried before the field moved to the PTO table
# (computed once from the registry, before the field was deleted).
OLD_REGISTRY_MNEMONICS = {
    "system.aic_initialize_pipe": "pto.aic_initialize_pipe",
    "system.aiv_initialize_pipe": "pto.aiv_initialize_pipe",
    "system.bar_all": "pto.barrier",
    "system.bar_m": "pto.barrier",
    "system.bar_v": "pto.barrier",
    "system.cacheinvalid": "pto.cmo.cacheinvalid",
    "system.fence": "pto.fence.barrier_all",
    "system.import_peer_buffer": "pto.import_reserved_buffer",
    "system.reserve_buffer": "pto.reserve_buffer",
    "system.sync_set": "pto.sync.set",
    "system.sync_wait": "pto.sync.wait",
    "system.syncall": "pto.syncall",
    "system.tfree_to_aic": "pto.tfree_from_aic",
    "system.tfree_to_aiv": "pto.tfree_from_aiv",
    "tile.abs": "pto.tabs",
    "tile.add": "pto.tadd",
    "tile.addc": "pto.taddc",
    "tile.adds": "pto.tadds",
    "tile.addsc": "pto.taddsc",
    "tile.and": "pto.tand",
    "tile.ands": "pto.tands",
    "tile.cast": "pto.tcvt",
    "tile.ci": "pto.tci",
    "tile.cmp": "pto.tcmp",
    "tile.cmps": "pto.tcmps",
    "tile.col_argmax": "pto.tcolargmax",
    "tile.col_argmin": "pto.tcolargmin",
    "tile.col_expand": "pto.tcolexpand",
    "tile.col_expand_add": "pto.tcolexpandadd",
    "tile.col_expand_div": "pto.tcolexpanddiv",
    "tile.col_expand_expdif": "pto.tcolexpandexpdif",
    "tile.col_expand_max": "pto.tcolexpandmax",
    "tile.col_expand_min": "pto.tcolexpandmin",
    "tile.col_expand_mul": "pto.tcolexpandmul",
    "tile.col_expand_sub": "pto.tcolexpandsub",
    "tile.col_max": "pto.tcolmax",
    "tile.col_min": "pto.tcolmin",
    "tile.col_prod": "pto.tcolprod",
    "tile.col_sum": "pto.tcolsum",
    "tile.concat": "pto.tconcat",
    "tile.div": "pto.tdiv",
    "tile.divs": "pto.tdivs",
    "tile.exp": "pto.texp",
    "tile.expands": "pto.texpands",
    "tile.extract": "pto.textract",
    "tile.fillpad": "pto.tfillpad",
    "tile.fillpad_expand": "pto.tfillpad_expand",
    "tile.fillpad_inplace": "pto.tfillpad",
    "tile.fmod": "pto.tfmod",
    "tile.fmods": "pto.tfmods",
    "tile.full": "pto.texpands",
    "tile.gather": "pto.tgather",
    "tile.gatherb": "pto.tgatherb",
    "tile.gemv": "pto.tgemv",
    "tile.gemv_acc": "pto.tgemv.acc",
    "tile.gemv_bias": "pto.tgemv.bias",
    "tile.load": "pto.tload",
    "tile.log": "pto.tlog",
    "tile.lrelu": "pto.tlrelu",
    "tile.matmul": "pto.tmatmul",
    "tile.matmul_acc": "pto.tmatmul.acc",
    "tile.matmul_bias": "pto.tmatmul.bias",
    "tile.maximum": "pto.tmax",
    "tile.maximums": "pto.tmaxs",
    "tile.minimum": "pto.tmin",
    "tile.minimums": "pto.tmins",
    "tile.move": "pto.tmov",
    "tile.mrgsort_format1": "pto.tmrgsort",
    "tile.mrgsort_format2": "pto.tmrgsort",
    "tile.mscatter": "pto.mscatter",
    "tile.mul": "pto.tmul",
    "tile.muls": "pto.tmuls",
    "tile.neg": "pto.tneg",
    "tile.not": "pto.tnot",
    "tile.or": "pto.tor",
    "tile.ors": "pto.tors",
    "tile.part_add": "pto.tpartadd",
    "tile.part_max": "pto.tpartmax",
    "tile.part_min": "pto.tpartmin",
    "tile.part_mul": "pto.tpartmul",
    "tile.prelu": "pto.tprelu",
    "tile.read": "pto.tgetval",
    "tile.recip": "pto.trecip",
    "tile.relu": "pto.trelu",
    "tile.rem": "pto.trem",
    "tile.rems": "pto.trems",
    "tile.reshape": "pto.treshape",
    "tile.row_argmax": "pto.trowargmax",
    "tile.row_argmin": "pto.trowargmin",
    "tile.row_expand": "pto.trowexpand",
    "tile.row_expand_add": "pto.trowexpandadd",
    "tile.row_expand_div": "pto.trowexpanddiv",
    "tile.row_expand_expdif": "pto.trowexpandexpdif",
    "tile.row_expand_max": "pto.trowexpandmax",
    "tile.row_expand_min": "pto.trowexpandmin",
    "tile.row_expand_mul": "pto.trowexpandmul",
    "tile.row_expand_sub": "pto.trowexpandsub",
    "tile.row_max": "pto.trowmax",
    "tile.row_min": "pto.trowmin",
    "tile.row_prod": "pto.trowprod",
    "tile.row_sum": "pto.trowsum",
    "tile.rsqrt": "pto.trsqrt",
    "tile.scatter": "pto.tscatter",
    "tile.sel": "pto.tsel",
    "tile.sels": "pto.tsels",
    "tile.set_validshape": "pto.set_validshape",
    "tile.shl": "pto.tshl",
    "tile.shls": "pto.tshls",
    "tile.shr": "pto.tshr",
    "tile.shrs": "pto.tshrs",
    "tile.slice": "pto.subview",
    "tile.sort32": "pto.tsort32",
    "tile.sqrt": "pto.tsqrt",
    "tile.store": "pto.tstore",
    "tile.sub": "pto.tsub",
    "tile.subc": "pto.tsubc",
    "tile.subs": "pto.tsubs",
    "tile.subsc": "pto.tsubsc",
    "tile.tpop_from_aic": "pto.tpop_from_aic",
    "tile.tpop_from_aiv": "pto.tpop_from_aiv",
    "tile.tpush_to_aic": "pto.tpush_to_aic",
    "tile.tpush_to_aiv": "pto.tpush_to_aiv",
    "tile.transpose": "pto.ttrans",
    "tile.write": "pto.tsetval",
    "tile.xor": "pto.txor",
    "tile.xors": "pto.txors",
}


def test_pto_table_keeps_every_mnemonic_the_registry_had() -> None:
    moved = {name: PTO_OPS[name].mnemonic for name in OLD_REGISTRY_MNEMONICS if name in PTO_OPS}
    assert moved == OLD_REGISTRY_MNEMONICS


def test_registry_entries_carry_no_mnemonic() -> None:
    assert all(not hasattr(e, "mnemonic") for e in op_registry.all_entries())


@pytest.mark.parametrize("name, mnemonic", [
    ("tile.get_block_idx", "arith.index_cast"), ("tensor.read", "pto.load_scalar"),
    ("tensor.write", "pto.store_scalar"), ("tile.assemble", "pto.tmov"), ("tile.create", ""), ("tile.alloc", ""),
])
def test_pto_table_adds_the_spec_forms_the_registry_lacked(name: str, mnemonic: str) -> None:
    assert PTO_OPS[name].mnemonic == mnemonic


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_rules_name_only_parameters_and_keywords_of_their_op(target) -> None:
    for name, rule in target.ops.items():
        entry = op_registry.get_entry(name)
        known = {p.name for p in entry.params} | set(entry.kwarg_names())
        assert rule.spelled(name) <= known, name


def test_a_table_rejects_unregistered_ops() -> None:
    with pytest.raises(IRValueError, match="toy op table names unregistered ops: tile.nope"):
        OpTable("toy", {"tile.add": Dps("pto.tadd"), "tile.nope": Dps("pto.tnope")})


def _tiles(*shape: int):
    return ir.Var("t", ir.TileType(list(shape), ir.DataType.FP32, memory_space=ir.MemorySpace.Vec))


def test_pto_attrs_spell_keywords() -> None:
    t = _tiles(16, 16)
    cast = ir.op.tile.cast(t, ir.DataType.FP16, mode="floor")
    assert [a.text(cast) for a in PTO_OPS["tile.cast"].attrs] == ["rmode = #pto<round_mode FLOOR>"]
    cmp = ir.op.tile.cmp(t, t, cmp_type=2)
    assert PTO_OPS["tile.cmp"].attrs[0].text(cmp) == "cmpMode = #pto<cmp lt>"
    (precise,) = PTO_OPS["tile.div"].attrs
    assert precise.text(ir.op.tile.div(t, t)) is None
    high = ir.op.tile.div(t, t, high_precision=True)
    assert precise.text(high) == "precisionType = #pto<div_precision high_precision>"
    assert not precise.inside
    ci = ir.op.tile.ci(ir.ConstInt(0, ir.DataType.INT32), [1, 16])
    assert PTO_OPS["tile.ci"].attrs[0].text(ci) == "descending = false"


def test_pto_and_cce_spell_the_scratch_form_of_col_sum() -> None:
    t = _tiles(16, 16)
    plain, scratch = ir.op.tile.col_sum(t), ir.op.tile.col_sum(t, t)
    (binary,) = PTO_OPS["tile.col_sum"].attrs
    assert (binary.text(plain), binary.text(scratch)) == (None, "isBinary = false")
    (flag,) = CCE_OPS["tile.col_sum"].trailing
    assert (flag.text(plain), flag.text(scratch)) == (None, "false")


def test_cce_choices_spell_enumerators() -> None:
    t = _tiles(16, 16)
    assert CCE_OPS["tile.cast"].trailing[0].text(ir.op.tile.cast(t, ir.DataType.FP16, "round")) == "RoundMode::CAST_ROUND"
    assert CCE_OPS["tile.cmps"].trailing[0].text(ir.op.tile.cmps(t, 0.0, cmp_type=5)) == "CmpMode::GE"
    (precise,) = CCE_OPS["tile.div"].template
    assert precise.text(ir.op.tile.div(t, t, high_precision=True)) == "DivAlgorithm::HIGH_PRECISION"
    assert precise.text(ir.op.tile.div(t, t)) is None


def test_rules_report_arguments_they_cannot_print() -> None:
    t = _tiles(16, 16)
    a = ir.Var("a", ir.TileType([1, 16], ir.DataType.FP16, memory_space=ir.MemorySpace.Left))
    b = ir.Var("b", ir.TileType([16, 16], ir.DataType.FP16, memory_space=ir.MemorySpace.Right))
    assert PTO_OPS["tile.gemv"].unspelled(ir.op.tile.gemv(a, b)) == []
    assert PTO_OPS["tile.gemv"].unspelled(ir.op.tile.gemv(a, b, acc_phase="partial")) == ["acc_phase"]
    assert CCE_OPS["tile.gemv"].unspelled(ir.op.tile.gemv(a, b, acc_phase="final")) == ["acc_phase"]
    assert PTO_OPS["tile.add"].unspelled(ir.op.tile.add(t, t)) == []
    x = ir.Var("x", ir.TensorType([16, 16], ir.DataType.FP32))
    assert PTO_OPS["system.cacheinvalid"].unspelled(ir.op.system.cacheinvalid()) == []
    partial = ir.op.system.cacheinvalid(x, [16, 16], [0, 0])
    assert PTO_OPS["system.cacheinvalid"].unspelled(partial) == ["tensor", "shapes", "offsets"]
    load = ir.op.tile.load(x, [0, 0], [16, 16])
    assert PTO_OPS["tile.load"].unspelled(load) == [] and CCE_OPS["tile.load"].unspelled(load) == []


def _identifiers(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def _cce_identifiers() -> dict[str, set[str]]:
    """Identifier -> the table entries printing it: mnemonics, enumerators and fixed operands."""
    found: dict[str, set[str]] = {}
    for name, rule in CCE_OPS.items():
        if isinstance(rule, cce_ops.SpmdIndex):
            continue  # declared by the runtime's intrinsic.h, checked below
        texts = [rule.mnemonic]
        for choice in (*getattr(rule, "template", ()), *getattr(rule, "trailing", ())):
            if isinstance(choice, Choice):
                texts += [v for v in choice.spell.values() if not v.isdigit()]
        if isinstance(rule, Intrinsic):
            texts.append(rule.operands)
        for word in _identifiers(" ".join(texts)):
            found.setdefault(word, set()).add(name)
    return found


@pytest.fixture(scope="module")
def pto_isa_headers(tmp_path_factory) -> str:
    if not PTO_ISA_BUNDLE.is_file():
        pytest.skip(f"pto-isa bundle not found at {PTO_ISA_BUNDLE}")
    repo = tmp_path_factory.mktemp("pto-isa") / "repo.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(PTO_ISA_BUNDLE), str(repo)], check=True)
    files = subprocess.run(["git", "--git-dir", str(repo), "ls-tree", "-r", "--name-only", "HEAD", "include/pto"],
                           check=True, capture_output=True, text=True).stdout.split()
    headers = [f for f in files if f.endswith((".hpp", ".h"))]
    blobs = subprocess.run(["git", "--git-dir", str(repo), "cat-file", "--batch"], check=True, capture_output=True,
                           input="".join(f"HEAD:{f}\n" for f in headers).encode())
    return blobs.stdout.decode(errors="replace")


def test_every_cce_identifier_is_declared_by_pto_isa(pto_isa_headers: str) -> None:
    declared = _identifiers(pto_isa_headers)
    missing = {word: sorted(ops) for word, ops in _cce_identifiers().items() if word not in declared}
    assert missing == {}


def _simpler_headers(*parts: str) -> str:
    root = SIMPLER.joinpath(*parts)
    if not root.is_dir():
        pytest.skip(f"simpler sources not found at {SIMPLER}")
    return "\n".join(p.read_text(errors="replace") for p in sorted(root.rglob("*.h")))


def test_cce_launch_identity_reads_are_declared_by_the_runtime() -> None:
    declared = _identifiers(_simpler_headers("src", "a2a3", "runtime", "tensormap_and_ringbuffer", "common"))
    reads = {rule.mnemonic for rule in CCE_OPS.values() if isinstance(rule, cce_ops.SpmdIndex)}
    assert reads == {"get_block_idx", "get_block_num", "get_sub_block_id"}
    assert reads <= declared


def test_every_orchestration_identifier_is_declared_by_the_runtime() -> None:
    declared = _identifiers(_simpler_headers("src", "a2a3", "runtime", "tensormap_and_ringbuffer"))
    declared |= _identifiers(_simpler_headers("src", "common", "task_interface"))  # ChipTensor's methods
    words: set[str] = set()
    for rule in ORCHESTRATION_OPS.values():
        words |= _identifiers(rule.mnemonic)
        if isinstance(rule, orchestration_ops.CreateTensor):
            words |= {rule.info, rule.initial}
    assert words - declared == set()


def test_tables_are_the_documented_targets() -> None:
    assert [(t.name, t.ops) for t in TARGETS] == [
        ("pto", PTO_OPS), ("cce", CCE_OPS), ("orchestration", ORCHESTRATION_OPS)]
    assert pto_ops.TARGET == "pto" and isinstance(PTO_OPS["tile.ands"], Dps)
    assert PTO_OPS["tile.ands"].scalar_type == "i32"
    assert isinstance(CCE_OPS["tile.row_expand"], Instr) and CCE_OPS["tile.row_expand"].args == (DST, "vec")
    assert isinstance(PTO_OPS["tile.store"].attrs[0], Attr) and isinstance(CCE_OPS["tile.col_sum"].trailing[0], Const)


def test_pipe_name_is_the_pipe_types_name_and_refuses_what_it_refuses() -> None:
    for pipe in PipeType:
        assert pipe_name(pipe) == pipe_name(int(pipe)) == pipe.name
    with pytest.raises(ValueError, match="99 is not a valid PipeType"):
        pipe_name(99)


def test_a_call_binds_as_the_registry_binds_it() -> None:
    # bound_parameters takes the required parameters without asking OpEntry.bind when no optional
    # argument is passed: every op call of the examples' final programs binds as bind says
    import pypto.language as pl
    from pypto import passes
    from pypto.analysis import function_index
    from pypto.ir.expr import Call

    examples = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))
    pipeline = passes.PassManager.get_strategy(verify="none", plugins=False)
    shortcut = general = 0
    for path in examples:
        final = pipeline.run(pl.loads_program(str(path)))
        for func in final.functions.values():
            for call in function_index(func).of(Call):
                entry = op_registry.lookup(call.op.name)
                if entry is None:  # a call of a function
                    continue
                assert bound_parameters(call) == [p.name for p in entry.bind(list(call.args))], call.op.name
                if len(call.args) == entry.min_args():
                    shortcut += 1
                else:
                    general += 1
    assert shortcut and general  # both ways of binding were compared
