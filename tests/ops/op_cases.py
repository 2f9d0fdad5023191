"""Build and rejection cases for every op of the catalog, as data.

``BUILDS``: (op, build, expected printed result type). ``REJECTS``: (op, build, error class,
message regex). ``test_op_cases.py`` runs them; ``test_coverage.py`` checks every catalog op has both.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, NamedTuple

from ops_helpers import scalar, tensor, tile

from pypto import ir
from pypto.ir.op import array as Arr
from pypto.ir.op import system as S
from pypto.ir.op import tensor as T
from pypto.ir.op import tile as L


class Build(NamedTuple):
    op: str
    build: Callable[[], Any]
    expected: str


class Reject(NamedTuple):
    op: str
    build: Callable[[], Any]
    error: type
    match: str


D = ir.DataType
Mem = ir.Mem
A = tensor("a", [64, 64])
B = tensor("b", [64, 64])
A16 = tensor("a16", [64, 64], D.FP16)
AI = tensor("ai", [64, 64], D.INT32)
AI16 = tensor("ai16", [64, 64], D.INT16)
V = tile("v", [64, 64])
W = tile("w", [64, 64])
V16 = tile("v16", [64, 64], D.FP16)
VI = tile("vi", [64, 64], D.INT32)
VI16 = tile("vi16", [64, 64], D.INT16)
LHS = tile("lhs", [64, 32], D.FP16, Mem.Left)
RHS = tile("rhs", [32, 64], D.FP16, Mem.Right)
ACC = tile("acc", [64, 64], D.FP32, Mem.Acc)
MAT = tile("mat", [64, 32], D.FP16, Mem.Mat)
F = scalar("f", D.FP32)
I32 = scalar("i32", D.INT32)
IDX = scalar("n", D.INDEX)
TID = scalar("tid", D.TASK_ID)

TENSOR_64 = "pl.Tensor[[64, 64], pl.FP32]"
TILE_64 = "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]"
TILE_64_I32 = "pl.Tile[[64, 64], pl.INT32, pl.Mem.Vec]"
VE, TE = ValueError, TypeError
SHAPES = "requires compatible shapes, but got"

BUILDS: list[Build] = []
REJECTS: list[Reject] = []


def ok(op: str, build: Callable[[], Any], expected: str) -> None:
    BUILDS.append(Build(op, build, expected))


def bad(op: str, build: Callable[[], Any], error: type, match: str) -> None:
    REJECTS.append(Reject(op, build, error, match))


def fn(module: Any, op: str) -> Callable[..., Any]:
    leaf = op.split(".", 1)[1]
    return getattr(module, leaf + "_" if leaf in ("and", "or", "not") else leaf)


# ---------------------------------------------------------------- tensor §4.1

ok("tensor.create", lambda: T.create([16, 16], D.FP32), "pl.Tensor[[16, 16], pl.FP32]")
ok("tensor.create", lambda: T.create([IDX, 16], D.FP16, ir.TensorLayout.DN),
   "pl.Tensor[[n, 16], pl.FP16, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)]")
bad("tensor.create", lambda: T.create([16], D.FP32, init_value=math.inf), VE, "init_value must be finite")
bad("tensor.create", lambda: T.create([F], D.FP32), VE, "elements must be integer scalars")
ok("tensor.full", lambda: T.full([4, 4], D.INT32, 0), "pl.Tensor[[4, 4], pl.INT32]")
bad("tensor.full", lambda: T.full([4, 4], D.FP32, F), VE, "argument 'value' must be a constant")
ok("tensor.ci", lambda: T.ci(0, [1, 16]), "pl.Tensor[[1, 16], pl.INT32]")
bad("tensor.ci", lambda: T.ci(0, [16, 1]), VE, "the last dimension must not be 1")
bad("tensor.ci", lambda: T.ci(0, [1, 16], D.FP32), VE, "ci dtype must be one of INT16, INT32, UINT16, UINT32")
ok("tensor.random", lambda: T.random(1, 2, 3, 4, 5, 6, [4, 8]), "pl.Tensor[[4, 8], pl.UINT32]")
bad("tensor.random", lambda: T.random(1, 2, 3, 4, 5, 6, [4, 8], rounds=8), VE, "rounds must be 7 or 10")
ok("tensor.create_l1", lambda: T.create_l1([16, 16], D.FP16), "pl.Tensor[[16, 16], pl.FP16]")
bad("tensor.create_l1", lambda: T.create_l1(5, D.FP16), TE, "argument 'shape' must be a list of scalars, got Python int")
ok("tensor.read", lambda: T.read(A, [0, IDX]), "pl.Scalar[pl.FP32]")
bad("tensor.read", lambda: T.read(A, 0), VE, "needs one index per dimension: 2 expected, got 1")
bad("tensor.read", lambda: T.read(A, [70, IDX]), VE,
    re.escape("index [70, n] is outside the shape [64, 64] (dimension 0)"))
ok("tensor.write", lambda: T.write(A, [0, 1], 1.0), TENSOR_64)
bad("tensor.write", lambda: T.write(A, [0, 1], I32), VE, "value dtype INT32 must equal the element dtype FP32")
ok("tensor.dim", lambda: T.dim(A, -1), "pl.Scalar[pl.INDEX]")
bad("tensor.dim", lambda: T.dim(A, 2), VE, "axis 2 is out of range for rank 2")
for _name in ("get_block_idx", "get_subblock_idx", "get_block_num"):
    ok(f"tensor.{_name}", getattr(T, _name), "pl.Scalar[pl.INDEX]")
    bad(f"tensor.{_name}", lambda _f=getattr(T, _name): _f(1), TE, "too many positional arguments; signature")

# ---------------------------------------------------------------- tensor §4.2

for _name in ("add", "sub", "mul", "div", "fmod", "maximum", "minimum"):
    _f = getattr(T, _name)
    ok(f"tensor.{_name}", lambda _f=_f: _f(A16, tensor("r", [64], D.FP32)), TENSOR_64)
    bad(f"tensor.{_name}", lambda _f=_f: _f(tensor("x", [4, 8]), tensor("y", [5])), VE, SHAPES + r" \[4, 8\] and \[5\]")
for _name in ("adds", "subs", "muls", "divs", "fmods"):
    _f = getattr(T, _name)
    ok(f"tensor.{_name}", lambda _f=_f: _f(A16, 2), "pl.Tensor[[64, 64], pl.FP16]")
    bad(f"tensor.{_name}", lambda _f=_f: _f(A, IDX), VE, "Scalar operand has dtype `index`")
for _name in ("part_add", "part_mul", "part_max", "part_min"):
    _f = getattr(T, _name)
    ok(f"tensor.{_name}", lambda _f=_f: _f(A, tensor("p", [32, 80])), "pl.Tensor[[64, 80], pl.FP32]")
    bad(f"tensor.{_name}", lambda _f=_f: _f(A, tensor("p", [64])), VE, "requires equal ranks")
bad("tensor.part_add", lambda: T.part_add(tensor("u", [8, 8], D.UINT16), tensor("w", [8, 8], D.UINT16)), VE,
    "Operator 'tensor.part_add': 'lhs' dtype must be one of INT8, UINT8, INT16, INT32, FP16, BF16, FP32, got UINT16")
ok("tensor.cmp", lambda: T.cmp(A, B, cmp_type=2), TENSOR_64)
bad("tensor.cmp", lambda: T.cmp(A, B, cmp_type=7), VE, r"kwarg 'cmp_type' must be in \[0, 5\], got 7")
for _name in ("and", "or", "xor", "shl", "shr"):
    _f = fn(T, f"tensor.{_name}")
    ok(f"tensor.{_name}", lambda _f=_f: _f(AI, AI16), "pl.Tensor[[64, 64], pl.INT32]")
    bad(f"tensor.{_name}", lambda _f=_f: _f(A, B), VE, "'lhs' requires an integer dtype, got FP32")
    _g = getattr(T, _name + "s")
    ok(f"tensor.{_name}s", lambda _g=_g: _g(AI16, 3), "pl.Tensor[[64, 64], pl.INT16]")
    bad(f"tensor.{_name}s", lambda _g=_g: _g(A, 3), VE, "requires an integer dtype")
bad("tensor.shls", lambda: T.shls(AI, -1), VE, "shift count must be >= 0, got -1")
bad("tensor.and", lambda: T.and_(AI, tensor("x", [64], D.INT32)), VE, "requires identical shapes")
ok("tensor.not", lambda: T.not_(AI16), "pl.Tensor[[64, 64], pl.INT16]")
bad("tensor.not", lambda: T.not_(AI), VE, "input dtype must be one of INT16, UINT16, got INT32")
for _name in ("exp", "neg", "abs", "sqrt", "recip", "rsqrt", "sin", "cos", "log"):
    ok(f"tensor.{_name}", lambda _f=getattr(T, _name): _f(A), TENSOR_64)
for _name in ("exp", "neg", "abs", "sqrt"):
    bad(f"tensor.{_name}", lambda _f=getattr(T, _name): _f(V), TE, "argument 'input' must be a Tensor")
for _name in ("sin", "cos"):
    bad(f"tensor.{_name}", lambda _f=getattr(T, _name): _f(A16), VE, "input dtype must be one of FP32, got FP16")
bad("tensor.log", lambda: T.log(AI), VE, "input dtype must be one of FP16, FP32, got INT32")
# pto-isa's TEXP/TSQRT/TRSQRT/TRECIP take FP16 and FP32 only; an integer sqrt computes in FP32.
for _name in ("exp", "recip", "rsqrt"):
    bad(f"tensor.{_name}", lambda _f=getattr(T, _name): _f(AI), VE,
        f"Operator 'tensor.{_name}': input dtype must be one of FP16, FP32, got INT32")
ok("tensor.sqrt", lambda: T.sqrt(AI), TENSOR_64)
bad("tensor.sqrt", lambda: T.sqrt(tensor("b16", [64, 64], D.BF16)), VE,
    "Operator 'tensor.sqrt': input dtype must be one of FP16, FP32, got BF16")
ok("tensor.cast", lambda: T.cast(A, D.FP16, "floor"), "pl.Tensor[[64, 64], pl.FP16]")
bad("tensor.cast", lambda: T.cast(A, D.FP32), VE, "same-dtype cast is not a valid operation")
ok("tensor.expands", lambda: T.expands(A, 1.0), TENSOR_64)
bad("tensor.expands", lambda: T.expands(A, B), TE, "argument 'scalar' must be a Scalar")
ok("tensor.expand_clone", lambda: T.expand_clone(tensor("s", [1, 8, 16]), tensor("t", [4, 8, 16])),
   "pl.Tensor[[4, 8, 16], pl.FP32]")
bad("tensor.expand_clone", lambda: T.expand_clone(A, B), VE, "requires rank-3 operands")
bad("tensor.div", lambda: T.div(A, 2.0, high_precision=True), TE, "high_precision=True is not supported with a scalar")

# ---------------------------------------------------------------- tensor §4.3

for _kind, _expected in (("row", "pl.Tensor[[64, 1], pl.FP32]"), ("col", "pl.Tensor[[1, 64], pl.FP32]")):
    for _name in ("sum", "max", "min", "prod"):
        ok(f"tensor.{_kind}_{_name}", lambda _f=getattr(T, f"{_kind}_{_name}"): _f(A), _expected)
    for _name in ("argmax", "argmin"):
        ok(f"tensor.{_kind}_{_name}", lambda _f=getattr(T, f"{_kind}_{_name}"): _f(A), _expected.replace("FP32", "INT32"))
for _name in ("sum", "max", "prod", "argmax", "argmin"):
    bad(f"tensor.row_{_name}", lambda _f=getattr(T, f"row_{_name}"): _f(V), TE, "must be a Tensor")
bad("tensor.row_min", lambda: T.row_min(tensor("u", [4, 4], D.INT8)), VE, "dtype must be one of INT16, INT32")
bad("tensor.col_sum", lambda: T.col_sum(AI), VE,
    "Operator 'tensor.col_sum': input dtype must be one of FP16, BF16, FP32, got INT32")
bad("tensor.row_sum", lambda: T.row_sum(tensor("u", [4, 4], D.UINT16)), VE,
    "Operator 'tensor.row_sum': input dtype must be one of FP16, BF16, FP32, INT16, INT32, got UINT16")
bad("tensor.col_max", lambda: T.col_max(AI), VE,
    "Operator 'tensor.col_max': input dtype must be one of FP16, BF16, FP32, INT8, UINT8, got INT32")
bad("tensor.row_expand_expdif", lambda: T.row_expand_expdif(AI, tensor("m", [64, 1], D.INT32)), VE,
    "Operator 'tensor.row_expand_expdif': 'input' dtype must be one of FP16, FP32, got INT32")
bad("tensor.col_expand_add", lambda: T.col_expand_add(tensor("q", [4, 4], D.INT8), tensor("c", [1, 4], D.INT8)),
    VE,
    "Operator 'tensor.col_expand_add': 'input' dtype must be one of FP32, FP16, INT32, INT16, UINT32, UINT16, got INT8")
for _name in ("sum", "max", "min", "prod", "argmax", "argmin"):
    bad(f"tensor.col_{_name}", lambda _f=getattr(T, f"col_{_name}"): _f(tensor("x", [64])), VE, "must have rank >= 2")
ROW_VEC, COL_VEC = tensor("rv", [64, 1]), tensor("cv", [1, 64])
for _kind, _vec, _wrong in (("row", ROW_VEC, COL_VEC), ("col", COL_VEC, ROW_VEC)):
    for _name in ["", *(f"_{f}" for f in ("add", "sub", "mul", "div", "max", "min", "expdif"))]:
        _f = getattr(T, f"{_kind}_expand{_name}")
        ok(f"tensor.{_kind}_expand{_name}", lambda _f=_f, _v=_vec: _f(A, _v), TENSOR_64)
        bad(f"tensor.{_kind}_expand{_name}", lambda _f=_f, _v=_wrong: _f(A, _v), VE, "must be a")

# ---------------------------------------------------------------- tensor §4.4

M_K, K_N = tensor("mk", [64, 32], D.FP16), tensor("kn", [32, 16], D.FP16)
ok("tensor.matmul", lambda: T.matmul(M_K, K_N), "pl.Tensor[[64, 16], pl.FP16]")
ok("tensor.matmul", lambda: T.matmul(M_K, tensor("nk", [16, 32], D.FP16), out_dtype=D.FP32, b_trans=True),
   "pl.Tensor[[64, 16], pl.FP32]")
ok("tensor.matmul", lambda: T.matmul(tensor("k", [32]), tensor("k2", [32])), "pl.Tensor[[], pl.FP32]")
ok("tensor.matmul", lambda: T.matmul(tensor("b3", [4, 64, 32]), tensor("kn2", [32, 16])),
   "pl.Tensor[[4, 64, 16], pl.FP32]")
bad("tensor.matmul", lambda: T.matmul(M_K, M_K), VE, r"inner dimensions differ.*K 32 vs 64")
bad("tensor.matmul", lambda: T.matmul(tensor("k", [32]), K_N, a_trans=True), VE, "cannot apply to a 1-D operand")
ACC_T = tensor("acc_t", [64, 16], D.FP32)
ok("tensor.matmul_acc", lambda: T.matmul_acc(ACC_T, M_K, K_N), "pl.Tensor[[64, 16], pl.FP32]")
bad("tensor.matmul_acc", lambda: T.matmul_acc(tensor("acc16", [64, 16], D.FP16), M_K, K_N), VE,
    "acc dtype must be FP32 for FP16 inputs")

# ---------------------------------------------------------------- tensor §4.5

ok("tensor.slice", lambda: T.slice(A, [8, 64], [0, 0]), "pl.Tensor[[8, 64], pl.FP32]")
ok("tensor.slice", lambda: T.slice(A, [8, 64], [IDX, 0], [8, IDX]),
   "pl.Tensor[[8, 64], pl.FP32, pl.TensorView(valid_shape=[8, n], stride=[], layout=pl.TensorLayout.ND)]")
ok("tensor.slice", lambda: T.slice(tensor("c", [4, 64, 64]), [1, 64, 64], [IDX, 0, 0], drop_dims=[0]),
   "pl.Tensor[[64, 64], pl.FP32]")
bad("tensor.slice", lambda: T.slice(A, [8, 64], [60, 0]), VE, r"reads past the source shape \[64, 64\]")
ok("tensor.reshape", lambda: T.reshape(A, [4096]), "pl.Tensor[[4096], pl.FP32]")
bad("tensor.reshape", lambda: T.reshape(A, [100]), VE, "cannot reshape tensor of size 4096")
ok("tensor.transpose", lambda: T.transpose(tensor("t48", [4, 8]), 0, -1),
   "pl.Tensor[[8, 4], pl.FP32, pl.TensorView(stride=[1, 8], layout=pl.TensorLayout.DN)]")
bad("tensor.transpose", lambda: T.transpose(A, 1, -1), VE, "axes must differ")
ok("tensor.view", lambda: T.view(A, [4096]), "pl.Tensor[[4096], pl.FP32]")
ok("tensor.view", lambda: T.view(A, layout=ir.TensorLayout.DN),
   "pl.Tensor[[64, 64], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)]")
bad("tensor.view", lambda: T.view(A, layout=ir.TensorLayout.NZ), VE, "the NZ layout cannot be a tensor view")
ok("tensor.reinterpret_view", lambda: T.reinterpret_view(A, D.INT16), "pl.Tensor[[64, 128], pl.INT16]")
bad("tensor.reinterpret_view", lambda: T.reinterpret_view(A, D.FP32), VE, "dtype must differ")
ok("tensor.concat", lambda: T.concat(tensor("c1", [4, 8]), tensor("c2", [4, 16])), "pl.Tensor[[4, 24], pl.FP32]")
bad("tensor.concat", lambda: T.concat(tensor("c1", [4, 8]), tensor("c2", [5, 8])), VE, "requires equal row counts")
ok("tensor.assemble", lambda: T.assemble(A, tensor("s", [8, 64]), [8, 0]), TENSOR_64)
bad("tensor.assemble", lambda: T.assemble(A, tensor("s", [8, 64]), [-8, 0]), VE, "offset -8 on axis 0 is negative")
bad("tensor.assemble", lambda: T.assemble(A, tensor("s", [8, 64]), [60, 0]), VE,
    r"window at offsets \[60, 0\] with shape \[8, 64\] writes past the target shape \[64, 64\]")
ok("tensor.assemble", lambda: T.assemble(A, tensor("s", [8, 64], D.FP16), [0, 0]), TENSOR_64)
bad("tensor.assemble", lambda: T.assemble(A, tensor("s", [8, 64], D.BOOL), [0, 0]), VE,
    "a BOOL source cannot be cast to the FP32 target")
bad("tensor.assemble", lambda: T.assemble(tensor("u", [64, 64], D.UINT16), tensor("s", [8, 64], D.UINT16), [0, 0],
                                          atomic=ir.AtomicType.Add),
    VE, "atomic Add dtype must be one of")
ok("tensor.fillpad", lambda: T.fillpad(A, pad_value=-math.inf), TENSOR_64)
bad("tensor.fillpad", lambda: T.fillpad(A, pad_value=ir.PadValue.null), VE, "must not be PadValue.null")
ok("tensor.fillpad_expand", lambda: T.fillpad_expand(tensor("p", [60, 60]), [64, 64]), TENSOR_64)
bad("tensor.fillpad_expand", lambda: T.fillpad_expand(A, [32, 64]), VE, "must be >= the source shape")
ok("tensor.set_validshape", lambda: T.set_validshape(A, 32, IDX),
   "pl.Tensor[[64, 64], pl.FP32, pl.TensorView(valid_shape=[32, n], stride=[], layout=pl.TensorLayout.ND)]")
bad("tensor.set_validshape", lambda: T.set_validshape(A, 65, 1), VE, r"'valid_rows' 65 is outside \[0, 64\]")

# ---------------------------------------------------------------- tensor §4.6

ok("tensor.gather", lambda: T.gather(A, tensor("ix", [64, 8], D.INT32)), "pl.Tensor[[64, 8], pl.FP32]")
bad("tensor.gather", lambda: T.gather(A, AI, dim=0), VE, "only dim=-1 is supported")
ok("tensor.gather_mask", lambda: T.gather_mask(A, mask_pattern=ir.MaskPattern.P0101), "pl.Tensor[[64, 32], pl.FP32]")
bad("tensor.gather_mask", lambda: T.gather_mask(tensor("g", [4, 6]), mask_pattern="P0001"), VE,
    "must be a static multiple of the pattern stride 4")
ok("tensor.gather_compare", lambda: T.gather_compare(A, 1.0, out_cols=8),
   "pl.Tuple[pl.Tensor[[64, 8], pl.INT32], pl.Tensor[[64, 1], pl.INT32]]")
bad("tensor.gather_compare", lambda: T.gather_compare(A, 1.0, out_cols=0), VE, r"kwarg 'out_cols' must be in \[1, inf\]")
ok("tensor.scatter", lambda: T.scatter(A, AI, B), TENSOR_64)
bad("tensor.scatter", lambda: T.scatter(A, AI, A16), VE, "src dtype FP16 must equal input dtype FP32")
ok("tensor.scatter_mask", lambda: T.scatter_mask(tensor("src", [64, 32]), B, mask_pattern=1), TENSOR_64)
bad("tensor.scatter_mask", lambda: T.scatter_mask(A16, B, mask_pattern=1), VE, "input dtype FP16 must equal dst dtype")
bad("tensor.scatter_mask", lambda: T.scatter_mask(A, B, mask_pattern=9), VE, "is not a valid MaskPattern value")
ok("tensor.scatter_update", lambda: T.scatter_update(A, tensor("ix", [8], D.INT32), tensor("rows", [8, 64])),
   TENSOR_64)
bad("tensor.scatter_update", lambda: T.scatter_update(A, tensor("ix", [8], D.INT32), tensor("rows", [64])), VE,
    "src rank must equal input rank")
ok("tensor.gather_row", lambda: T.gather_row(A, B, [0, 0], [8, 0], [8, 64]), TENSOR_64)
bad("tensor.gather_row", lambda: T.gather_row(A, B, [0, 0, 0], [8, 0], [8, 64]), VE, "'dst_offset' must have 2 elements")
KV = tensor("kv", [1024, 128], D.FP16)
ok("tensor.paged_gather", lambda: T.paged_gather(KV, tensor("ix", [64], D.INT32), tensor("bt", [16], D.INT32),
                                                 128, IDX, 64), "pl.Tensor[[64, 128], pl.FP16]")
bad("tensor.paged_gather", lambda: T.paged_gather(KV, tensor("ix", [64], D.INT32), tensor("bt", [16], D.INT32),
                                                  128, IDX, IDX), VE, "max_indices must be a positive constant")
ok("tensor.sort32", lambda: T.sort32(tensor("s", [1, 64]), tensor("i", [1, 64], D.UINT32)),
   "pl.Tensor[[1, 128], pl.FP32]")
bad("tensor.sort32", lambda: T.sort32(tensor("s", [1, 40]), tensor("i", [1, 40], D.UINT32)), VE,
    "columns must be a static multiple of 32")
ok("tensor.sort32", lambda: T.sort32(tensor("s", [2, 64], D.FP16), tensor("i", [2, 64], D.UINT32)),
   "pl.Tensor[[2, 256], pl.FP16]")
bad("tensor.sort32", lambda: T.sort32(tensor("s", [1, 64], D.INT32), tensor("i", [1, 64], D.UINT32)), VE,
    "Operator 'tensor.sort32': 'src' dtype must be one of FP16, FP32, got INT32")
ok("tensor.mrgsort_format1", lambda: T.mrgsort_format1(tensor("r", [1, 512]), block_len=64),
   "pl.Tensor[[1, 512], pl.FP32]")
bad("tensor.mrgsort_format1", lambda: T.mrgsort_format1(tensor("r", [1, 512]), block_len=0), VE,
    "block_len must be a positive multiple of 64 elements, got 0")
bad("tensor.mrgsort_format1", lambda: T.mrgsort_format1(A, block_len=64), VE,
    r"Operator 'tensor.mrgsort_format1': sorts one row: 'src0' must have 1 row, got \[64, 64\]")
bad("tensor.mrgsort_format1", lambda: T.mrgsort_format1(tensor("r", [1, 384]), block_len=64), VE,
    r"the valid columns must be a static multiple of 4 \* block_len = 256 \(at most 255 groups\), got \[384\]")
ok("tensor.mrgsort_format2", lambda: T.mrgsort_format2(tensor("m1", [1, 64]), tensor("m2", [1, 64]),
                                                       tensor("m3", [1, 32])), "pl.Tensor[[1, 160], pl.FP32]")
bad("tensor.mrgsort_format2", lambda: T.mrgsort_format2(A, A16), VE, "'src1' dtype FP16 must equal FP32")
ok("tensor.aiv_shard", lambda: T.aiv_shard(A, split=1), "pl.Tensor[[32, 64], pl.FP32]")
bad("tensor.aiv_shard", lambda: T.aiv_shard(tensor("o", [63, 64]), split=1), VE, "split 1 needs an even extent")
ok("tensor.aic_gather", lambda: T.aic_gather(A, split=2), "pl.Tensor[[64, 128], pl.FP32]")
bad("tensor.aic_gather", lambda: T.aic_gather(A, split=3), VE, "cannot be gathered")
ok("tensor.alloc", lambda: T.alloc(Mem.DDR, 1024), "pl.Ptr")
bad("tensor.alloc", lambda: T.alloc(99, 1024), VE, "memory_space must be a constant MemorySpace")

# ---------------------------------------------------------------- tile §5.1

ok("tile.create", lambda: L.create([16, 32], D.FP32, Mem.Acc), "pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc]")
ok("tile.create", lambda: L.create([16, 32], D.FP16, Mem.Mat, transpose=True),
   "pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, "
   "slayout=pl.TileLayout.col_major)]")
bad("tile.create", lambda: L.create([IDX, 32], D.FP32), VE, "must hold static positive integers")
bad("tile.create", lambda: L.create([16, 32], D.FP32, transpose=True), VE, "only apply to Mat tiles")
ok("tile.full", lambda: L.full([16, 16], D.FP32, 0), "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]")
bad("tile.full", lambda: L.full([16, 16], D.INT32, 0.5), VE, "value 0.5 does not fit dtype INT32")
ok("tile.ci", lambda: L.ci(0, [1, 64], D.UINT32, descending=True), "pl.Tile[[1, 64], pl.UINT32, pl.Mem.Vec]")
bad("tile.ci", lambda: L.ci(I32, [1, 64], D.INT16), VE, "start dtype INT32 must equal dtype INT16")
ok("tile.tri", lambda: L.tri(0, [16, 16], upper=True), "pl.Tile[[16, 16], pl.INT32, pl.Mem.Vec]")
bad("tile.tri", lambda: L.tri(0, [16]), VE, "shape must be 2-D")
ok("tile.random", lambda: L.random(1, 2, 3, 4, 5, 6, [4, 8], dtype=D.INT32), "pl.Tile[[4, 8], pl.INT32, pl.Mem.Vec]")
bad("tile.random", lambda: L.random(1, 2, 3, 4, 5, 6, [4, 8], dtype=D.FP32), VE, "random dtype must be one of")
ok("tile.load", lambda: L.load(A, [0, 0], [64, 64]), TILE_64)
ok("tile.load", lambda: L.load(A, [0, 0], [32, 64], [IDX, 64], target_memory=Mem.Mat),
   "pl.Tile[[32, 64], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[n, 64])]")
ok("tile.load", lambda: L.load(tensor("short", [60, 64]), [32, 0], [32, 64], clamp=True),
   "pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[28, 64])]")
bad("tile.load", lambda: L.load(A, [0, 0], [64, 64], target_memory=Mem.Left), VE,
    "target_memory must be Vec or Mat, got Left")
bad("tile.load", lambda: L.load(A, [48, 0], [32, 64]), VE, "reads past the source shape")
bad("tile.load", lambda: L.load(A, [-64, 0], [16, 64]), VE,
    r"offset -64 on axis 0 is negative: the window at offsets \[-64, 0\] reads before the start of the tensor")
ok("tile.store", lambda: L.store(V, [0, 0], B), TENSOR_64)
ok("tile.store", lambda: L.store(tile("h", [32, 64]), [32, 0], tensor("part", [64, 64], view=ir.TensorView(
    [], ir.TensorLayout.ND, [32, 64]))), TENSOR_64)
bad("tile.store", lambda: L.store(V, [0, 0], A16), VE, "tile dtype FP32 must equal the output tensor dtype FP16")
bad("tile.store", lambda: L.store(V, [0, -1], B), VE, "offset -1 on axis 1 is negative")
bad("tile.store", lambda: L.store(V, [8, 0], B), VE,
    r"window at offsets \[8, 0\] with shape \[64, 64\] writes past the output tensor shape \[64, 64\]")
ok("tile.move", lambda: L.move(MAT, Mem.Left), "pl.Tile[[64, 32], pl.FP16, pl.Mem.Left]")
ok("tile.move", lambda: L.move(tile("col", [64, 1], D.FP16, Mem.Mat), Mem.Right),
   "pl.Tile[[64, 1], pl.FP16, pl.Mem.Right, pl.TileView(blayout=pl.TileLayout.row_major)]")
bad("tile.move", lambda: L.move(MAT), TE, "missing a required argument: 'target_memory'")
ok("tile.extract", lambda: L.extract(MAT, 16, 0, [16, 32], target_memory=Mem.Left),
   "pl.Tile[[16, 32], pl.FP16, pl.Mem.Left]")
bad("tile.extract", lambda: L.extract(MAT, 56, 0, [16, 32], target_memory=Mem.Left), VE, "is outside the source")
ok("tile.read", lambda: L.read(V, [1, 2]), "pl.Scalar[pl.FP32]")
bad("tile.read", lambda: L.read(V, [1, 2, 3]), VE, "needs one index per dimension")
ok("tile.write", lambda: L.write(V, [1, 2], 0), TILE_64)
bad("tile.write", lambda: L.write(V, [1, 2], I32), VE, "value dtype INT32 must equal the element dtype FP32")
bad("tile.write", lambda: L.write(V, [1, 64], 0), VE,
    re.escape("index [1, 64] is outside the shape [64, 64] (dimension 1)"))
for _name in ("get_block_idx", "get_subblock_idx", "get_block_num"):
    ok(f"tile.{_name}", getattr(L, _name), "pl.Scalar[pl.INDEX]")
    bad(f"tile.{_name}", lambda _f=getattr(L, _name): _f(V), TE, "too many positional arguments; signature")
ok("tile.alloc", lambda: L.alloc(Mem.Vec, 4096, pinned=True), "pl.Ptr")
bad("tile.alloc", lambda: L.alloc(Mem.Vec, F), VE, "'size' requires an integer dtype")

# ---------------------------------------------------------------- tile §5.2

for _name in ("add", "sub", "mul", "maximum", "minimum", "fmod"):
    _f = getattr(L, _name)
    ok(f"tile.{_name}", lambda _f=_f: _f(V16, tile("r", [1, 64])), TILE_64)
    bad(f"tile.{_name}", lambda _f=_f: _f(V, tile("r", [32, 64])), VE, SHAPES)
ok("tile.div", lambda: L.div(V, W, high_precision=True), TILE_64)
bad("tile.div", lambda: L.div(V, V16), VE, "requires equal dtypes, got FP32 and FP16")
bad("tile.div", lambda: L.div(VI16, VI16, high_precision=True), VE, "high_precision dtype must be one of FP16, FP32")
for _name in ("adds", "subs", "muls", "divs", "maximums", "minimums", "fmods"):
    _f = getattr(L, _name)
    ok(f"tile.{_name}", lambda _f=_f: _f(V16, 2.5), "pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec]")
    bad(f"tile.{_name}", lambda _f=_f: _f(V, W), TE, "argument 'rhs' must be a Scalar")
bad("tile.subs", lambda: L.subs(tile("u8", [8, 8], D.UINT8), 1), VE, "lhs dtype must be one of INT8")
ok("tile.rem", lambda: L.rem(V, W, tile("tmp", [64, 64])), TILE_64)
bad("tile.rem", lambda: L.rem(V, W), TE, "missing a required argument: 'tmp'")
ok("tile.rems", lambda: L.rems(V, 3.0, tile("tmp", [64, 64])), TILE_64)
bad("tile.rems", lambda: L.rems(V, W, W), TE, "argument 'rhs' must be a Scalar")
for _name in ("part_add", "part_mul", "part_max", "part_min"):
    _f = getattr(L, _name)
    ok(f"tile.{_name}", lambda _f=_f: _f(V, tile("p", [32, 80])), "pl.Tile[[64, 80], pl.FP32, pl.Mem.Vec]")
    bad(f"tile.{_name}", lambda _f=_f: _f(V, tile("p", [64])), VE, "requires equal ranks")
ok("tile.part_max", lambda: L.part_max(tile("p8", [8, 32], D.UINT8), tile("q8", [8, 32], D.UINT8)),
   "pl.Tile[[8, 32], pl.UINT8, pl.Mem.Vec]")
bad("tile.part_max", lambda: L.part_max(tile("u", [8, 8], D.UINT32), tile("w", [8, 8], D.UINT32)), VE,
    "Operator 'tile.part_max': 'lhs' dtype must be one of INT8, UINT8, INT16, INT32, FP16, BF16, FP32, got UINT32")
ok("tile.cmp", lambda: L.cmp(V, W, cmp_type=4),
   "pl.Tile[[64, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[64, 8])]")
bad("tile.cmp", lambda: L.cmp(V, tile("r", [32, 64])), VE, SHAPES)
ok("tile.cmps", lambda: L.cmps(tile("c", [8, 300]), 0.0),
   "pl.Tile[[8, 64], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[8, 38])]")
bad("tile.cmps", lambda: L.cmps(V, 0.0, cmp_type="lt"), TE, "kwarg 'cmp_type' expects int")
# A partially valid source still gives whole packed rows (pto-isa's CPU TCMPS lays rows out by them).
ok("tile.cmps", lambda: L.cmps(tile("pc", [32, 32], view=ir.TileView(valid_shape=[19, 21])), 0.0),
   "pl.Tile[[32, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[19, 4])]")
ok("tile.cmp", lambda: L.cmp(tile("pd", [64, 64], view=ir.TileView(valid_shape=[IDX, IDX])), W),
   "pl.Tile[[64, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[n, 8])]")
for _name in ("and", "or", "shl", "shr"):
    _f = fn(L, f"tile.{_name}")
    ok(f"tile.{_name}", lambda _f=_f: _f(VI, VI), TILE_64_I32)
    bad(f"tile.{_name}", lambda _f=_f: _f(V, W), VE, "requires an integer dtype")
    _g = getattr(L, _name + "s")
    ok(f"tile.{_name}s", lambda _g=_g: _g(VI, 7), TILE_64_I32)
    bad(f"tile.{_name}s", lambda _g=_g: _g(V, 7), VE, "requires an integer dtype")
ok("tile.xor", lambda: L.xor(VI, VI, tile("t", [64, 64], D.INT32)), TILE_64_I32)
bad("tile.xor", lambda: L.xor(VI, VI), TE, "missing a required argument: 'tmp'")
ok("tile.xors", lambda: L.xors(VI, 1, tile("t", [64, 64], D.INT32)), TILE_64_I32)
bad("tile.xors", lambda: L.xors(V, 1, W), VE, "requires an integer dtype")
ok("tile.not", lambda: L.not_(VI16), "pl.Tile[[64, 64], pl.INT16, pl.Mem.Vec]")
bad("tile.not", lambda: L.not_(VI), VE, "tile dtype must be one of INT16, UINT16")
for _name in ("addc", "subc"):
    ok(f"tile.{_name}", lambda _f=getattr(L, _name): _f(V, W, W), TILE_64)
    bad(f"tile.{_name}", lambda _f=getattr(L, _name): _f(V, W, V16), VE, "'third' dtype FP16 must equal 'lhs' dtype")
for _name in ("addsc", "subsc"):
    ok(f"tile.{_name}", lambda _f=getattr(L, _name): _f(V, 1.0, W), TILE_64)
    bad(f"tile.{_name}", lambda _f=getattr(L, _name): _f(V, W, W), TE, "argument 'rhs' must be a Scalar")
ok("tile.prelu", lambda: L.prelu(V, W, tile("t", [64, 64])), TILE_64)
bad("tile.prelu", lambda: L.prelu(V, V16, W), VE, "'slope' dtype FP16 must equal the input dtype FP32")
ok("tile.lrelu", lambda: L.lrelu(V, 0.1), TILE_64)
bad("tile.lrelu", lambda: L.lrelu(V, W), TE, "argument 'slope' must be a Scalar")
ok("tile.sel", lambda: L.sel(tile("m", [64, 8], D.UINT8), V, W, tile("t", [64, 64])), TILE_64)
bad("tile.sel", lambda: L.sel(tile("m", [64, 8], D.UINT8), V, V16, W), VE, "'lhs' and 'rhs' dtypes must be equal")
bad("tile.sel", lambda: L.sel(tile("m", [64, 32], D.UINT8), V, W, W), VE,
    "'mask' has 32 valid columns but 'lhs' has 64: the target reads the mask as one bit stream, 8 bits per mask "
    "element, so it needs the mask to have exactly 8 valid columns")
ok("tile.sels", lambda: L.sels(tile("m", [64, 8], D.UINT8), tile("u", [64, 64], D.UINT16), W, 3),
   "pl.Tile[[64, 64], pl.UINT16, pl.Mem.Vec]")
bad("tile.sels", lambda: L.sels(tile("m", [64, 8], D.UINT8), V, W, IDX), VE, "Scalar operand has dtype `index`")
bad("tile.sels", lambda: L.sels(tile("m", [64, 9], D.UINT8), V, W, 3), VE,
    "'mask' has 9 valid columns but 'src' has 64")
bad("tile.sel", lambda: L.sel(tile("m", [64, 8], D.UINT16), V, W, W), VE,
    "Operator 'tile.sel': 'mask' dtype must be one of UINT8, got UINT16")
bad("tile.sels", lambda: L.sels(tile("m", [64, 8], D.UINT32), V, W, 3), VE,
    "Operator 'tile.sels': 'mask' dtype must be one of UINT8, got UINT32")
for _name in ("exp", "neg", "abs", "sqrt", "relu", "sin", "cos", "log", "recip", "rsqrt"):
    ok(f"tile.{_name}", lambda _f=getattr(L, _name): _f(V), TILE_64)
for _name in ("exp", "neg", "abs", "sqrt", "relu"):
    bad(f"tile.{_name}", lambda _f=getattr(L, _name): _f(A), TE, "argument 'tile' must be a Tile")
for _name in ("sin", "cos"):
    bad(f"tile.{_name}", lambda _f=getattr(L, _name): _f(V16), VE, "tile dtype must be one of FP32")
bad("tile.log", lambda: L.log(VI), VE, "tile dtype must be one of FP16, FP32")
for _name in ("exp", "sqrt", "recip", "rsqrt"):
    bad(f"tile.{_name}", lambda _f=getattr(L, _name): _f(VI16), VE,
        f"Operator 'tile.{_name}': tile dtype must be one of FP16, FP32, got INT16")
ok("tile.rsqrt", lambda: L.rsqrt(V, W), TILE_64)
bad("tile.rsqrt", lambda: L.rsqrt(V, V16), VE, "'tmp' must have the input's shape and dtype")
ok("tile.cast", lambda: L.cast(V, D.BF16, mode=5), "pl.Tile[[64, 64], pl.BF16, pl.Mem.Vec]")
bad("tile.cast", lambda: L.cast(V, D.FP32, mode="round"), VE, "same-dtype cast")
bad("tile.cast", lambda: L.cast(V, D.FP16), TE, "missing a required argument: .mode.")
ok("tile.expands", lambda: L.expands(V, 0), TILE_64)
bad("tile.expands", lambda: L.expands(V, W), TE, "argument 'scalar' must be a Scalar")

# ---------------------------------------------------------------- tile §5.3

TMP = tile("red_tmp", [64, 64])
for _name in ("sum", "max", "min", "prod"):
    ok(f"tile.row_{_name}", lambda _f=getattr(L, f"row_{_name}"): _f(V, TMP), "pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec]")
    bad(f"tile.row_{_name}", lambda _f=getattr(L, f"row_{_name}"): _f(V, tile("s", [64, 32])), VE,
        "must cover the input")
for _kind, _shape in (("row", "[64, 1]"), ("col", "[1, 64]")):
    for _name in ("argmax", "argmin"):
        _f = getattr(L, f"{_kind}_{_name}")
        ok(f"tile.{_kind}_{_name}", lambda _f=_f: _f(V, TMP), f"pl.Tile[{_shape}, pl.INT32, pl.Mem.Vec]")
        bad(f"tile.{_kind}_{_name}", lambda _f=_f: _f(V, tile("big", [64, 128])), VE, "must have the input shape")
ok("tile.col_sum", lambda: L.col_sum(V), "pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec]")
ok("tile.col_sum", lambda: L.col_sum(V, TMP), "pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec]")
bad("tile.col_sum", lambda: L.col_sum(V, V16), VE, "'tmp_tile' must have the input's dtype and rank")
bad("tile.col_sum", lambda: L.col_sum(VI), VE,
    "Operator 'tile.col_sum': tile dtype must be one of FP16, BF16, FP32, got INT32")
bad("tile.row_sum", lambda: L.row_sum(tile("u", [8, 8], D.UINT32), tile("t", [8, 8], D.UINT32)), VE,
    "Operator 'tile.row_sum': tile dtype must be one of FP16, BF16, FP32, INT16, INT32, got UINT32")
ok("tile.col_max", lambda: L.col_max(tile("b", [8, 8], D.INT8)), "pl.Tile[[1, 8], pl.INT8, pl.Mem.Vec]")
bad("tile.col_max", lambda: L.col_max(VI16), VE,
    "Operator 'tile.col_max': tile dtype must be one of FP16, BF16, FP32, INT8, UINT8, got INT16")
for _name in ("max", "min", "prod"):
    ok(f"tile.col_{_name}", lambda _f=getattr(L, f"col_{_name}"): _f(V), "pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec]")
    bad(f"tile.col_{_name}", lambda _f=getattr(L, f"col_{_name}"): _f(tile("x", [64])), VE, "must have rank >= 2")
RV, CV = tile("rv", [64, 1]), tile("cv", [1, 64])
for _kind, _vec, _wrong in (("row", RV, CV), ("col", CV, RV)):
    for _name in ["", *(f"_{f}" for f in ("add", "sub", "mul", "div", "max", "min", "expdif"))]:
        _f = getattr(L, f"{_kind}_expand{_name}")
        ok(f"tile.{_kind}_expand{_name}", lambda _f=_f, _v=_vec: _f(V, _v), TILE_64)
        bad(f"tile.{_kind}_expand{_name}", lambda _f=_f, _v=_wrong: _f(V, _v), VE, "must be a")
ok("tile.row_expand_add", lambda: L.row_expand_add(V, RV, TMP), TILE_64)
ok("tile.row_expand_mul", lambda: L.row_expand_mul(tile("b", [8, 32], D.UINT8), tile("bv", [8, 1], D.UINT8)),
   "pl.Tile[[8, 32], pl.UINT8, pl.Mem.Vec]")
bad("tile.row_expand_add", lambda: L.row_expand_add(tile("b", [8, 32], D.UINT8), tile("bv", [8, 1], D.UINT8)), VE,
    "Operator 'tile.row_expand_add': 'tile' dtype must be one of FP32, FP16, INT32, INT16, UINT32, UINT16, got UINT8")
bad("tile.col_expand_expdif", lambda: L.col_expand_expdif(VI, tile("cv", [1, 64], D.INT32)), VE,
    "Operator 'tile.col_expand_expdif': 'tile' dtype must be one of FP16, FP32, got INT32")

# ---------------------------------------------------------------- tile §5.4

ACC_64 = "pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc]"
ok("tile.matmul", lambda: L.matmul(LHS, RHS), ACC_64)
bad("tile.matmul", lambda: L.matmul(LHS, LHS), VE, "requires matching physical inner dimensions")
bad("tile.matmul", lambda: L.matmul(LHS, tile("r8", [32, 64], D.INT8, Mem.Right)), VE, "requires equal input dtypes")
ok("tile.matmul_acc", lambda: L.matmul_acc(ACC, LHS, RHS, True), ACC_64)
bad("tile.matmul_acc", lambda: L.matmul_acc(tile("a16", [64, 64], D.FP16, Mem.Acc), LHS, RHS), VE,
    "acc dtype must be the accumulator dtype FP32")
BIAS = tile("bias", [1, 64], D.FP32, Mem.Bias)
ok("tile.matmul_bias", lambda: L.matmul_bias(LHS, RHS, BIAS), ACC_64)
bad("tile.matmul_bias", lambda: L.matmul_bias(LHS, RHS, tile("bb", [2, 64], D.FP32, Mem.Bias)), VE, r"bias must be \[1, N\]")
B_L, B_R = tile("bl", [2, 64, 32], D.FP16, Mem.Left), tile("br", [32, 64], D.FP16, Mem.Right)
ok("tile.batch_matmul", lambda: L.batch_matmul(B_L, B_R), "pl.Tile[[2, 64, 64], pl.FP32, pl.Mem.Acc]")
bad("tile.batch_matmul", lambda: L.batch_matmul(tile("x", [32]), B_R), VE, "must have rank >= 2")
B_ACC = tile("bacc", [2, 64, 64], D.FP32, Mem.Acc)
ok("tile.batch_matmul_acc", lambda: L.batch_matmul_acc(B_ACC, B_L, B_R), "pl.Tile[[2, 64, 64], pl.FP32, pl.Mem.Acc]")
bad("tile.batch_matmul_acc", lambda: L.batch_matmul_acc(ACC, B_L, B_R), VE, r"acc shape \[64, 64\] must be \[2, 64, 64\]")
G_L = tile("gl", [1, 32], D.INT8, Mem.Left)
G_R = tile("gr", [32, 64], D.INT8, Mem.Right)
ok("tile.gemv", lambda: L.gemv(G_L, G_R), "pl.Tile[[1, 64], pl.INT32, pl.Mem.Acc]")
bad("tile.gemv", lambda: L.gemv(LHS, RHS), VE, r"lhs must be \[1, K\]")
ok("tile.gemv_acc", lambda: L.gemv_acc(tile("ga", [1, 64], D.INT32, Mem.Acc), G_L, G_R, acc_phase="final"),
   "pl.Tile[[1, 64], pl.INT32, pl.Mem.Acc]")
bad("tile.gemv_acc", lambda: L.gemv_acc(tile("ga", [1, 64], D.INT32, Mem.Acc), G_L, G_R, acc_phase="done"), VE,
    "kwarg 'acc_phase' must be one of")
ok("tile.gemv_bias", lambda: L.gemv_bias(G_L, G_R, tile("gb", [1, 64], D.INT32, Mem.Bias)),
   "pl.Tile[[1, 64], pl.INT32, pl.Mem.Acc]")
bad("tile.gemv_bias", lambda: L.gemv_bias(G_L, G_R, BIAS), VE, "bias dtype must be INT32")
MX_L, MX_R = tile("xl", [64, 64], D.FP8E4M3FN, Mem.Left), tile("xr", [64, 32], D.FP8E4M3FN, Mem.Right)
MX_LS = tile("xls", [64, 2], D.FP8E8M0, Mem.LeftScale)
MX_RS = tile("xrs", [2, 32], D.FP8E8M0, Mem.RightScale)
ok("tile.matmul_mx", lambda: L.matmul_mx(MX_L, MX_LS, MX_R, MX_RS), "pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc]")
bad("tile.matmul_mx", lambda: L.matmul_mx(LHS, MX_LS, MX_R, MX_RS), VE, "lhs dtype must be one of FP8E4M3FN")
ok("tile.matmul_mx_acc", lambda: L.matmul_mx_acc(tile("xa", [64, 32], D.FP32, Mem.Acc), MX_L, MX_LS, MX_R, MX_RS),
   "pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc]")
bad("tile.matmul_mx_acc", lambda: L.matmul_mx_acc(ACC, MX_L, MX_LS, MX_R, MX_RS), VE, "acc shape")
ok("tile.matmul_mx_bias", lambda: L.matmul_mx_bias(MX_L, MX_LS, MX_R, MX_RS, tile("xb", [1, 32], D.FP32, Mem.Bias)),
   "pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc]")
bad("tile.matmul_mx_bias", lambda: L.matmul_mx_bias(MX_L, MX_R, MX_R, MX_RS, BIAS), VE, "lhs_scale dtype must be")
ok("tile.transpose_view", lambda: L.transpose_view(MAT),
   "pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, "
   "slayout=pl.TileLayout.col_major)]")
ok("tile.transpose_view", lambda: L.transpose_view(tile("t3", [2, 16, 32], D.FP16, Mem.Mat)),
   "pl.Tile[[2, 32, 16], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, "
   "slayout=pl.TileLayout.col_major)]")
bad("tile.transpose_view", lambda: L.transpose_view(tile("t1", [16], D.FP16, Mem.Mat)), VE, "must have rank >= 2")

# ---------------------------------------------------------------- tile §5.5

ok("tile.slice", lambda: L.slice(V, [16, 64], [IDX, 0], [16, IDX]),
   "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, n])]")
ok("tile.slice", lambda: L.slice(V, [1, 64], [IDX, 0], drop_dims=[0]),
   "pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec]")
ok("tile.slice", lambda: L.slice(MAT, [32, 32], [0, 0]), "pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat]")
bad("tile.slice", lambda: L.slice(V, [IDX, 64], [0, 0]), VE, "shape must be static positive")
bad("tile.slice", lambda: L.slice(V, [8, 16], [0, 4]), VE,
    r"a window of a row_major FP32 tile must start on a 32-byte boundary: column offset 4 is not a multiple of 8 "
    r"\(hint: slice from offset 0 and keep the rest in the valid region, or slice the tensor before loading it\)")
ok("tile.slice", lambda: L.slice(V16, [8, 16], [3, 16]), "pl.Tile[[8, 16], pl.FP16, pl.Mem.Vec]")
ok("tile.slice", lambda: L.slice(V, [8, 16], [0, scalar("j", D.INDEX) * 8]), "pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec]")
bad("tile.slice", lambda: L.slice(V, [8, 16], [0, scalar("j", D.INDEX) * 8 + 4]), VE,
    r"column offset j \* 8 \+ 4 is not known to be a multiple of 8 \(hint: write it as a multiple of 8, e.g. j \* 8\)")
ok("tile.reshape", lambda: L.reshape(V, [1, 4096]), "pl.Tile[[1, 4096], pl.FP32, pl.Mem.Vec]")
ok("tile.reshape", lambda: L.reshape(MAT, [32, 64]), "pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat]")
bad("tile.reshape", lambda: L.reshape(V, [3, 4]), VE, "cannot reshape tensor of size 4096")
ok("tile.reshape", lambda: L.reshape(tile("b", [32, 32], D.INT8), [16, 64]), "pl.Tile[[16, 64], pl.INT8, pl.Mem.Vec]")
bad("tile.reshape", lambda: L.reshape(tile("b", [32, 32], D.INT8), [64, 16]), VE,
    r"Operator 'tile.reshape': a row-major INT8 tile of shape \[64, 16\] has rows of 16 bytes; the target needs a "
    r"multiple of 32 \(hint: reshape to a last dimension that is a multiple of 32\)")
ok("tile.reshape", lambda: L.reshape(tile("cv", [64, 1], view=ir.TileView(blayout=ir.TileLayout.col_major)), [1, 64]),
   "pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec]")
bad("tile.reshape", lambda: L.reshape(tile("cm", [64, 64], view=ir.TileView(blayout=ir.TileLayout.col_major)),
                                      [128, 32]), VE,
    r"a col-major \[64, 64\] tile reshaped to \[128, 32\] would reorder its elements \(TRESHAPE reinterprets "
    r"the buffer row-major\); tile.move it to row-major first")
ok("tile.reinterpret_view", lambda: L.reinterpret_view(tile("flat", [1, 64]), D.INT16),
   "pl.Tile[[1, 128], pl.INT16, pl.Mem.Vec]")
bad("tile.reinterpret_view", lambda: L.reinterpret_view(MAT, D.INT16), VE, "only packed row-major flat tiles")
ok("tile.transpose", lambda: L.transpose(tile("r", [16, 64]), 0, 1, tile("tt", [64, 64])),
   "pl.Tile[[64, 16], pl.FP32, pl.Mem.Vec]")
bad("tile.transpose", lambda: L.transpose(tile("r", [16, 64]), 0, 0), VE, "axes must differ")
ok("tile.assemble", lambda: L.assemble(V, tile("src", [16, 64]), [16, 0]), TILE_64)
ok("tile.assemble", lambda: L.assemble(V16, tile("accs", [16, 64], D.FP32, Mem.Acc), [0, 0]),
   "pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec]")
bad("tile.assemble", lambda: L.assemble(V, tile("src", [16, 64], D.FP16), [0, 0]), VE,
    "source dtype FP16 must equal target dtype FP32")
bad("tile.assemble", lambda: L.assemble(V, tile("src", [16, 32]), [0, 4]), VE,
    "column offset 4 is not a multiple of 8 .hint: assemble at column 0, or widen the source to start there")
ok("tile.assemble", lambda: L.assemble(V, tile("one", [1, 1]), [3, 5]), TILE_64)
bad("tile.assemble", lambda: L.assemble(tile("i8", [64, 64], D.INT8), tile("s8", [16, 64], D.INT8), [0, 0]), VE,
    "INT8 tiles cannot be assembled: a2a3 TINSERT copies INT16, UINT16, FP16, BF16, FP32, INT32, UINT32")
_CM = ir.TileView(blayout=ir.TileLayout.col_major)
bad("tile.assemble", lambda: L.assemble(tile("tc", [64, 64], view=_CM), tile("sc", [16, 64], view=_CM), [0, 0]), VE,
    "a plain col-major tile cannot be assembled")
bad("tile.assemble", lambda: L.assemble(V, tile("sc", [16, 64], view=ir.TileView(blayout=ir.TileLayout.col_major)),
                                        [0, 0]), VE, "the source .col_major. and the target .row_major. must have one layout")
ok("tile.concat", lambda: L.concat(tile("c1", [8, 16]), tile("c2", [8, 32])), "pl.Tile[[8, 48], pl.FP32, pl.Mem.Vec]")
bad("tile.concat", lambda: L.concat(V, V16), VE, "requires equal dtypes")
ok("tile.set_validshape", lambda: L.set_validshape(V, IDX, 64),
   "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])]")
bad("tile.set_validshape", lambda: L.set_validshape(V, F, 64), VE, "'valid_rows' must be an integer scalar")
PART = tile("part", [64, 64], view=ir.TileView(valid_shape=[IDX, 64]))
PART_I = tile("part_i", [64, 64], D.INT32, view=ir.TileView(valid_shape=[IDX, 64]))
ok("tile.fillpad", lambda: L.fillpad(PART, pad_value=math.inf),
   "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.max)]")
bad("tile.fillpad", lambda: L.fillpad(V, pad_value=1.5), VE, "numeric pad values are 0, math.inf and -math.inf")
ok("tile.fillpad_inplace", lambda: L.fillpad_inplace(PART),
   "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.zero)]")
bad("tile.fillpad_inplace", lambda: L.fillpad_inplace(V, pad_value=ir.PadValue.null), VE, "must not be PadValue.null")
ok("tile.fillpad_expand", lambda: L.fillpad_expand(tile("s", [60, 64]), [64, 64]),
   "pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec, pl.TileView(pad=pl.PadValue.zero)]")
bad("tile.fillpad_expand", lambda: L.fillpad_expand(V, [64, IDX]), VE, "'shape' must be static")
ok("tile.gather", lambda: L.gather(V, tile("ix", [8, 64], D.INT32), tile("gt", [8, 64], D.INT32)),
   "pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec]")
ok("tile.gather", lambda: L.gather(V16, PART_I, tile("gt", [64, 64], D.INT32, view=ir.TileView(valid_shape=[IDX, 64]))),
   "pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])]")
bad("tile.gather", lambda: L.gather(tile("v8", [64, 64], D.INT8), VI, VI), VE,
    "'src' dtype must be one of FP32, INT32, UINT32, FP16, BF16, INT16, UINT16, got INT8")
bad("tile.gather", lambda: L.gather(V, VI16, VI16), VE, "'indices' dtype must be one of INT32, UINT32, got INT16")
bad("tile.gather", lambda: L.gather(V, VI, tile("gt", [64, 64], D.UINT32)), VE,
    "'tmp' dtype UINT32 must equal the indices dtype INT32")
bad("tile.gather", lambda: L.gather(V, VI, tile("gt", [8, 64], D.INT32)), VE,
    r"'tmp' \[8, 64\] must have the shape of 'indices' \[64, 64\]")
bad("tile.gather", lambda: L.gather(V, PART_I, VI), VE,
    r"'tmp' valid region \[64, 64\] must equal the indices' \[n, 64\] \(a2a3 TGATHER asserts it\)")
bad("tile.gather", lambda: L.gather(V, tile("ixc", [64, 64], D.INT32, view=ir.TileView(
    blayout=ir.TileLayout.col_major)), VI), VE,
    "'indices' must be a row-major tile")
ok("tile.gatherb", lambda: L.gatherb(V, tile("off", [8, 8], D.UINT32), output_dtype=D.FP16),
   "pl.Tile[[8, 128], pl.FP16, pl.Mem.Vec]")
ok("tile.gatherb", lambda: L.gatherb(V, tile("off", [8, 16], D.INT32, view=ir.TileView(valid_shape=[4, 8]))),
   "pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 64])]")
bad("tile.gatherb", lambda: L.gatherb(V, W), VE, "'offset' dtype must be one of UINT32, INT32, got FP32")
bad("tile.gatherb", lambda: L.gatherb(V, tile("off", [8, 8], D.UINT32), output_dtype=D.INT64), VE,
    "output dtype must be one of FP32, INT32, UINT32, FP16, BF16, INT16, UINT16, INT8, UINT8, got INT64")
bad("tile.gatherb", lambda: L.gatherb(V, tile("off", [8, 4], D.UINT32)), VE,
    r"'offset' columns must be a static multiple of 8 \(a2a3 TGATHERB gathers whole repeats of 8 blocks per row\), "
    r"got \[4\]")
bad("tile.gatherb", lambda: L.gatherb(V, tile("off", [8, 8], D.UINT32, view=ir.TileView(valid_shape=[8, IDX]))), VE,
    "'offset' valid columns must be a static multiple of 8")
bad("tile.gatherb", lambda: L.gatherb(V, tile("off", [8, 8], D.UINT32, view=ir.TileView(
    blayout=ir.TileLayout.col_major))), VE, "'offset' must be a row-major tile")
ok("tile.gather_mask", lambda: L.gather_mask(V, ir.MaskPattern.P1111), TILE_64)
bad("tile.gather_mask", lambda: L.gather_mask(V, "P9"), VE, "must be a MaskPattern name")
ok("tile.gather_compare", lambda: L.gather_compare(V, 0.0, TMP, cmp_mode="gt", out_cols=4, count_dtype=D.INT16),
   "pl.Tuple[pl.Tile[[64, 4], pl.INT32, pl.Mem.Vec], pl.Tile[[64, 1], pl.INT16, pl.Mem.Vec]]")
bad("tile.gather_compare", lambda: L.gather_compare(V, 0.0, TMP, cmp_mode="gte", out_cols=4), VE,
    "kwarg 'cmp_mode' must be one of")
ok("tile.mgather", lambda: L.mgather(A, tile("mi", [16, 1], D.INT32)), "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]")
ok("tile.mgather", lambda: L.mgather(A, tile("mi", [16, 1], D.INT32), scratch=W, valid_shape=[IDX, 64]),
   "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])]")
bad("tile.mgather", lambda: L.mgather(A, V), VE, "'idx' requires an integer dtype")
ok("tile.mgather", lambda: L.mgather(A, tile("mi", [16, 1], D.INT32), "elem", valid_shape=[IDX, 1]),
   "pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 1])]")
ok("tile.scatter", lambda: L.scatter(V, W, VI), TILE_64)
ok("tile.scatter", lambda: L.scatter(tile("d8", [64, 64], D.INT8), tile("s8", [64, 64], D.INT8), VI16),
   "pl.Tile[[64, 64], pl.INT8, pl.Mem.Vec]")
bad("tile.scatter", lambda: L.scatter(V, V16, VI), VE, "src dtype FP16 must equal dst dtype FP32")
bad("tile.scatter", lambda: L.scatter(V, W, VI16), VE,
    r"'indexes' \(for FP32 data\) dtype must be one of INT32, UINT32, got INT16")
bad("tile.scatter", lambda: L.scatter(V16, V16, VI), VE,
    r"'indexes' \(for FP16 data\) dtype must be one of INT16, UINT16, got INT32")
bad("tile.scatter", lambda: L.scatter(tile("d64", [64, 64], D.INT64), tile("s64", [64, 64], D.INT64), VI), VE,
    "'dst' dtype must be one of FP32, INT32, UINT32, FP16, BF16, INT16, UINT16, INT8, UINT8, got INT64")
bad("tile.scatter", lambda: L.scatter(V, PART, VI), VE,
    r"'src' valid region \[n, 64\] must equal the indexes' \[64, 64\]")
bad("tile.scatter", lambda: L.scatter(V, W, tile("vic", [64, 64], D.INT32, view=ir.TileView(
    blayout=ir.TileLayout.col_major))), VE, "'indexes' must be a row-major tile")
ok("tile.scatter_mask", lambda: L.scatter_mask(V, tile("half", [64, 32]), "P0101"), TILE_64)
bad("tile.scatter_mask", lambda: L.scatter_mask(V, V16, 1), VE, "src dtype FP16 must equal dst dtype FP32")
ok("tile.mscatter", lambda: L.mscatter(V, VI, B), TENSOR_64)
bad("tile.mscatter", lambda: L.mscatter(V, VI, A16), VE, "must equal the output tensor dtype")
bad("tile.mscatter", lambda: L.mscatter(V16, VI16, A16), VE, "'idx' dtype must be one of INT32, UINT32, got INT16")
bad("tile.mscatter", lambda: L.mscatter(PART, VI, B), VE,
    r"'src' valid region \[n, 64\] must equal the idx's \[64, 64\]")
bad("tile.mscatter", lambda: L.mscatter(tile("vc", [64, 64], view=ir.TileView(blayout=ir.TileLayout.col_major)), VI, B),
    VE, "'src' must be a row-major tile")
ok("tile.scatter_update", lambda: L.scatter_update(V, tile("i", [1, 8], D.INT32), tile("rows", [8, 64])), TILE_64)
bad("tile.scatter_update", lambda: L.scatter_update(V, W, W), VE, "'index' requires an integer dtype")
ok("tile.gather_row", lambda: L.gather_row(MAT, tensor("g", [128, 32], D.FP16), [0, 0], [IDX, 0], [16, 32],
                                           valid_shape=[16, 32]), "pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat]")
bad("tile.gather_row", lambda: L.gather_row(MAT, A, [0, 0], [0, 0], [16, 32]), VE, "src dtype FP32 must equal")
ok("tile.sort32", lambda: L.sort32(tile("s", [1, 64]), tile("si", [1, 64], D.UINT32)),
   "pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec]")
bad("tile.sort32", lambda: L.sort32(tile("s", [1, 64]), tile("si", [1, 64])), VE, "'idx' must hold UINT32 indices, got FP32")
bad("tile.sort32", lambda: L.sort32(tile("s", [1, 64]), tile("si", [1, 64], D.UINT32, view=ir.TileView(valid_shape=[1, 32]))), VE,
    r"'idx' valid region \[1, 32\] must equal the valid region of 'src' \[1, 64\]")
bad("tile.sort32", lambda: L.sort32(tile("s", [1, 64], view=ir.TileView(valid_shape=[1, 40])),
                                                 tile("si", [1, 64], D.UINT32, view=ir.TileView(valid_shape=[1, 40]))),
    VE, r"the valid columns must be a static multiple of 32, got \[40\]")
ok("tile.mrgsort_format1", lambda: L.mrgsort_format1(tile("m", [1, 256]), block_len=64),
   "pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec]")
bad("tile.mrgsort_format1", lambda: L.mrgsort_format1(V, block_len=-1), VE,
    "block_len must be a positive multiple of 64 elements, got -1")
bad("tile.mrgsort_format1", lambda: L.mrgsort_format1(tile("m", [1, 256], D.INT32), block_len=64), VE,
    "'src0' dtype must be one of FP16, FP32, got INT32")
ok("tile.mrgsort_format2", lambda: L.mrgsort_format2(tile("m1", [1, 64]), tile("m2", [1, 64]), tile("m3", [1, 64]),
                                                     tile("mt", [1, 192])), "pl.Tile[[1, 192], pl.FP32, pl.Mem.Vec]")
bad("tile.mrgsort_format2", lambda: L.mrgsort_format2(tile("m1", [1, 64])), TE, "takes 2-4 sources and a tmp")

# ---------------------------------------------------------------- cross-core §7 (tile namespace)

ok("tile.tpush_to_aiv", lambda: L.tpush_to_aiv(ACC, split=1, id=0), "pl.UnknownType")
bad("tile.tpush_to_aiv", lambda: L.tpush_to_aiv(ACC), TE, "missing a required argument: 'split'")
ok("tile.tpush_to_aic", lambda: L.tpush_to_aic(V, split=0), "pl.UnknownType")
bad("tile.tpush_to_aic", lambda: L.tpush_to_aic(V, split=5), VE, r"kwarg 'split' must be in \[0, 4\]")
ok("tile.tpop_from_aic", lambda: L.tpop_from_aic(shape=[64, 64], dtype=D.FP32, split=0), TILE_64)
ok("tile.tpop_from_aic", lambda: L.tpop_from_aic(split=1), "pl.UnknownType")
bad("tile.tpop_from_aic", lambda: L.tpop_from_aic(shape=[64, 64]), VE, "shape and dtype must be given together")
ok("tile.tpop_from_aiv", lambda: L.tpop_from_aiv(shape=[64, 32], dtype=D.FP16, id=1),
   "pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat]")
bad("tile.tpop_from_aiv", lambda: L.tpop_from_aiv(id=-1), VE, r"kwarg 'id' must be in \[0, inf\]")
ok("tile.aiv_shard", lambda: L.aiv_shard(ACC, split=2), "pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec]")
ok("tile.aiv_shard", lambda: L.aiv_shard(tile("odd", [63, 64]), split=3, lane_stride=32),
   "pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec]")
bad("tile.aiv_shard", lambda: L.aiv_shard(tile("odd", [63, 64]), split=1), VE, "split 1 needs an even extent")
ok("tile.aic_gather", lambda: L.aic_gather(V, split=1), "pl.Tile[[128, 64], pl.FP32, pl.Mem.Mat]")
bad("tile.aic_gather", lambda: L.aic_gather(V, split=4), VE, "cannot be gathered")

# ---------------------------------------------------------------- system §6-§7

UNKNOWN = "pl.UnknownType"
for _name in ("sync_src", "sync_dst"):
    _f = getattr(S, _name)
    ok(f"system.{_name}", lambda _f=_f: _f(set_pipe=ir.PipeType.MTE2, wait_pipe=ir.PipeType.V, event_id=0), UNKNOWN)
    bad(f"system.{_name}", lambda _f=_f: _f(set_pipe="MTE9", wait_pipe=ir.PipeType.V, event_id=0), VE,
        "kwarg 'set_pipe' must be a PipeType name")
for _name in ("bar_v", "bar_m", "bar_all", "fence"):
    ok(f"system.{_name}", getattr(S, _name), UNKNOWN)
    bad(f"system.{_name}", lambda _f=getattr(S, _name): _f(V), TE, "too many positional arguments; signature")
ok("system.cacheinvalid", lambda: S.cacheinvalid(), UNKNOWN)
ok("system.cacheinvalid", lambda: S.cacheinvalid(A, [8, 64], [0, 0]), UNKNOWN)
bad("system.cacheinvalid", lambda: S.cacheinvalid(A), VE, "takes no arguments, or all of tensor, shapes and offsets")
ok("system.syncall", lambda: S.syncall(core_type="aiv_only"), UNKNOWN)
ok("system.syncall", lambda: S.syncall(mode="soft", gm_workspace=AI, used_cores=0), UNKNOWN)
bad("system.syncall", lambda: S.syncall(mode="soft", gm_workspace=AI), VE, "soft syncall requires")
bad("system.syncall", lambda: S.syncall(gm_workspace=AI), VE, "hard syncall takes no gm_workspace")
ok("system.sync_set", lambda: S.sync_set(3, pipe=ir.PipeType.MTE3, ffts_mode=1), UNKNOWN)
ok("system.sync_set", lambda: S.sync_set(IDX, pipe=ir.PipeType.V), UNKNOWN)
bad("system.sync_set", lambda: S.sync_set(14, pipe=ir.PipeType.V), VE, r"kwarg 'event_id' must be in \[0, 13\]")
ok("system.sync_wait", lambda: S.sync_wait(0, pipe="V", core_type="aiv"), UNKNOWN)
bad("system.sync_wait", lambda: S.sync_wait(0, pipe=ir.PipeType.V, core_type="cube"), VE, "kwarg 'core_type'")
ok("system.set_ffts", lambda: S.set_ffts(tensor("ws", [256], D.INT64)), UNKNOWN)
bad("system.set_ffts", lambda: S.set_ffts(tensor("ws", [128], D.INT64)), VE, ">= 256 static elements")
ok("system.task_invalid", S.task_invalid, "pl.Scalar[pl.TASK_ID]")
bad("system.task_invalid", lambda: S.task_invalid(TID), TE, "too many positional arguments; signature")
ok("system.task_dummy", lambda: S.task_dummy([TID]), "pl.Scalar[pl.TASK_ID]")
bad("system.task_dummy", lambda: S.task_dummy([TID, I32]), TE, r"deps entries must be Scalar\[TASK_ID\].*got Scalar\[int32\]")
ok("system.task_is_valid", lambda: S.task_is_valid(TID), "pl.Scalar[pl.BOOL]")
bad("system.task_is_valid", lambda: S.task_is_valid(I32), VE, "must be a TASK_ID scalar")
for _name in ("available_cluster_count", "available_aiv_count"):
    ok(f"system.{_name}", getattr(S, _name), "pl.Scalar[pl.INT32]")
    bad(f"system.{_name}", lambda _f=getattr(S, _name): _f(1), TE, "too many positional arguments; signature")
for _name in ("tfree_to_aic", "tfree_to_aiv"):
    ok(f"system.{_name}", lambda _f=getattr(S, _name): _f(V, split=0, id=1), UNKNOWN)
    bad(f"system.{_name}", lambda _f=getattr(S, _name): _f(A), TE, "argument 'tile' must be a Tile")
for _name in ("aic_initialize_pipe", "aiv_initialize_pipe"):
    _f = getattr(S, _name)
    ok(f"system.{_name}", lambda _f=_f: _f(0, I32, dir_mask=2, slot_size=512, slot_num=16, local_slot_num=4), UNKNOWN)
    bad(f"system.{_name}", lambda _f=_f: _f(0, 0, dir_mask=3, slot_size=512, local_slot_num=8), VE,
        r"local_slot_num \(8\) must be <= slot_num \(4\)")
    bad(f"system.{_name}", lambda _f=_f: _f(0, 0, dir_mask=1, slot_size=510), VE,
        r"slot_size \(510\) must be a multiple of 4 bytes")
    ok(f"system.{_name}", lambda _f=_f: _f(0, 0, dir_mask=3, slot_size=512, id=12), UNKNOWN)
    bad(f"system.{_name}", lambda _f=_f: _f(0, 0, dir_mask=3, slot_size=512, id=13), VE,
        r"id \(13\) must be <= 12 for a two-way pipe \(dir_mask=3\)$")
    ok(f"system.{_name}", lambda _f=_f: _f(0, 0, dir_mask=2, slot_size=512, id=14), UNKNOWN)
    bad(f"system.{_name}", lambda _f=_f: _f(0, 0, dir_mask=1, slot_size=512, id=15), VE,
        r"id \(15\) must be <= 14 for a one-way pipe \(dir_mask=1\)$")
ok("system.reserve_buffer", lambda: S.reserve_buffer(name="slot_buf", size=4096, base=-1), "pl.Scalar[pl.INT32]")
bad("system.reserve_buffer", lambda: S.reserve_buffer(name="slot-buf", size=4096), VE, r"name must match")
ok("system.import_peer_buffer", lambda: S.import_peer_buffer(name="slot_buf", peer_func="other"), "pl.Scalar[pl.INT32]")
bad("system.import_peer_buffer", lambda: S.import_peer_buffer(name="slot_buf"), TE, "missing a required argument")

# ---------------------------------------------------------------- array §8

ARR = ir.Var("arr", ir.ArrayType(D.INT32, 8))
ok("array.create", lambda: Arr.create(8, D.TASK_ID), "pl.Array[8, pl.TASK_ID]")
bad("array.create", lambda: Arr.create(8, D.FP32), VE, "dtype must be an integer, BOOL or TASK_ID, got FP32")
bad("array.create", lambda: Arr.create(IDX, D.INT32), VE, "extent must be a static integer > 0")
ok("array.get_element", lambda: Arr.get_element(ARR, IDX), "pl.Scalar[pl.INT32]")
bad("array.get_element", lambda: Arr.get_element(ARR, F), VE, "argument 'index' must be an integer scalar")
ok("array.update_element", lambda: Arr.update_element(ARR, 0, IDX), "pl.Array[8, pl.INT32]")
bad("array.update_element", lambda: Arr.update_element(ARR, 0, F), VE, "value dtype FP32 must equal the array dtype")
