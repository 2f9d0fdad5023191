"""TaskId arrays, array carries and dependency-only tasks in orchestration C++ (docs/codegen.md#orchestration).

Helpers of :class:`~pypto.codegen.orchestration.OrchestrationEmitter` (the ``em`` argument), kept
apart so the task-id rules read in one place::

    tids = pl.array.create(4, pl.TASK_ID)        PTO2TaskId tids[4];  (each slot PTO2TaskId::invalid())
    tids[i] = t                                  tids[i] = t;
    p = tids[3]                                  PTO2TaskId p = tids[3];
    bar = pl.system.task_dummy(deps=[a, b])      ... set_dependencies; rt_submit_dummy_task(params_dummy_0);

A TaskId carried through a ``pl.parallel`` loop of a manual scope (``iter_arg_array_size_<i> = N``) is
a phase fence: the loop's result is an array of N slots, each iteration writing its own, while every
iteration reads the carry's value from before the loop, so the branches of one phase run in parallel
and a consumer waits for all of them. A sequential loop threading such an array copies it slot by slot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pypto.analysis.defuse import base_name

from pypto.ir.enums import ForKind
from pypto.ir.expr import Call, ConstInt, Expr, IterArg, Submit, Var
from pypto.ir.stmt import ForStmt
from pypto.ir.type_base import ScalarType
from pypto.ir.types import ArrayType
from pypto.runtime.errors import BoundsGuard

from .errors import CodegenError
from .op_table import argument
from .orchestration_ops import Array, DummyTask

if TYPE_CHECKING:
    from .orchestration import OrchestrationEmitter


def array_op(em: OrchestrationEmitter, call: Call, rule: Array) -> str | None:
    """``array.create`` declares ``T arr[N];`` (TaskIds invalid, integers 0, like the interpreter);
    ``array.get_element`` is ``arr[k]``; ``array.update_element`` writes ``arr[k] = v;`` in place and
    names its result after the array."""
    if rule.access == "create":
        var = em._defined(call)
        t: ArrayType = var.type
        n = t.extent.value
        name = em.declare(var)
        if t.dtype.is_task_id():
            em.doc.line(f"PTO2TaskId {name}[{n}];")
            fill(em, name, n, "PTO2TaskId::invalid()")
            em.task_arrays[name] = n
        else:
            em.doc.line(f"{element_type(em, t, call)} {name}[{n}] = {{0}};")
        return None
    arr = argument(call, "array")
    name = em.expr(arr)
    index = em.expr(argument(call, "index"))
    _index_guard(em, call, arr, index)
    if rule.access == "read":
        return f"{name}[{index}]"
    em.doc.line(f"{name}[{index}] = {em.expr(argument(call, 'value'))};")
    if em.defining is not None:
        em.alias(em.defining, name)
    return None


def _index_guard(em: OrchestrationEmitter, call: Call, arr: Expr, index: str) -> None:
    """Stop the run, as a kernel window out of bounds does, when a computed index falls outside the
    array (a C array has no bounds; constant indices are checked when the program is parsed)."""
    if _within(em, argument(call, "index"), arr.type.extent.value):
        return
    from .orchestration import _c_format  # noqa: PLC0415  (orchestration imports this module)

    n = arr.type.extent.value
    span = call.span
    where = f" ({span.file_name}:{span.begin_line})" if span.begin_line > 0 else ""
    i = f"(int64_t)({index})"
    with em.doc.block(f"if ({i} < 0 || {i} >= {n}) {{"):
        text = (f'"{BoundsGuard.SLOT.marker} the array \'{_c_format(base_name(arr.name_hint))}\'{_c_format(where)} '
                f'is indexed at %lld, outside its {n} slots"')
        em.doc.line(f"rt_report_fatal(PTO2_ERROR_INVALID_ARGS, {text}, (long long){i});")
        em.doc.line("return;")


def _within(em: OrchestrationEmitter, index: Expr, n: int) -> bool:
    """Whether ``index`` is statically in ``[0, n)``: a constant, or the variable of an enclosing
    ``for`` loop with constant bounds inside it."""
    if isinstance(index, ConstInt):
        return True
    for carry in em.carries:
        loop = carry.loop
        if loop is None or loop.loop_var is not index:
            continue
        bounds = (loop.start, loop.stop, loop.step)
        if all(isinstance(b, ConstInt) for b in bounds):
            start, stop, step = (b.value for b in bounds)
            return step > 0 and start >= 0 and stop <= n
    return False


def element_type(em: OrchestrationEmitter, t: ArrayType, call: Call) -> str:
    """The C++ element type of an integer or BOOL array."""
    from .orchestration import c_type  # noqa: PLC0415  (orchestration imports this module)

    return c_type(ScalarType(t.dtype), call.span)


def fill(em: OrchestrationEmitter, dst: str, n: int, src: str) -> None:
    """Every slot of the C array ``dst`` takes ``src`` (a value), or the same slot of ``src`` when
    ``src`` is itself a TaskId array."""
    k = em.fresh(f"{dst}_k")
    value = f"{src}[{k}]" if src in em.task_arrays else src
    em.doc.line(f"for (uint32_t {k} = 0; {k} < {n}; ++{k}) {dst}[{k}] = {value};")
    em.taken.discard(k)


def in_place_array(em: OrchestrationEmitter, ia: IterArg, rv: Var, init: str) -> bool:
    """Whether a loop (``for`` or ``while``) carry is an explicit array, which is updated in place: the
    iter_arg, its updates and the loop's result all name the C array ``init``."""
    if not isinstance(ia.type, ArrayType):
        return False
    em.alias(ia, init)
    em.alias(rv, init)
    return True


def array_carry(em: OrchestrationEmitter, node: ForStmt, i: int, init: str) -> tuple[str, str | None] | None:
    """The C++ carry of slot ``i`` of a loop when it is an array (None otherwise): the name the
    loop's result takes, and how the yield writes it (``"copy"``, ``"slot"``, or None when the
    array is updated in place)."""
    ia, rv = node.iter_args[i], node.return_vars[i]
    if in_place_array(em, ia, rv, init):
        return init, None
    n = node.attrs.get(f"iter_arg_array_size_{i}")
    if n is None:
        return None
    name = em.declare(rv)
    em.doc.line(f"PTO2TaskId {name}[{n}];")
    fill(em, name, n, init)
    em.task_arrays[name] = n
    if node.kind is ForKind.Parallel:
        # Every branch reads the carry from before the loop (the previous phase) and writes its slot.
        em.alias(ia, init)
        return name, "slot"
    em.alias(ia, name)
    return name, "copy"


def yield_array(em: OrchestrationEmitter, node: ForStmt, loop_var: str, name: str, how: str, text: str) -> None:
    """The yield of an array carry: a parallel branch writes its slot, a sequential loop copies the
    yielded array (or broadcasts a single TaskId)."""
    if text == name:
        return
    if how == "copy":
        fill(em, name, em.task_arrays[name], text)
        return
    if text in em.task_arrays:
        raise CodegenError("no rule for a pl.parallel branch yielding a TaskId array in orchestration", node.span,
                           "a branch of a phase yields the TaskId of its own task")
    em.doc.line(f"{name}[{_slot(em, node, loop_var)}] = {text};")


def _slot(em: OrchestrationEmitter, node: ForStmt, i: str) -> str:
    start, step = node.start, node.step
    if isinstance(start, ConstInt) and isinstance(step, ConstInt):
        offset = i if start.value == 0 else f"({i} - {start.value})"
        return offset if step.value == 1 else f"{offset} / {step.value}"
    return f"({i} - {em.expr(start)}) / ({em.expr(step)})"


def dep_lines(em: OrchestrationEmitter, deps: list[str], array: str, count: str) -> list[str]:
    """The lines filling ``array`` with ``deps`` (a declared C array): a fresh TaskId unguarded, a
    carry or slot guarded by ``is_valid()``, a TaskId array slot by slot."""
    size = sum(em.task_arrays.get(d, 1) for d in deps)
    lines = [f"PTO2TaskId {array}[{size}];", f"uint32_t {count} = 0;"]
    for dep in deps:
        add = f"{array}[{count}++] = {dep};"
        n = em.task_arrays.get(dep)
        if n is not None:
            k = f"{array}_k"
            lines.append(f"for (uint32_t {k} = 0; {k} < {n}; ++{k}) "
                         f"if ({dep}[{k}].is_valid()) {array}[{count}++] = {dep}[{k}];")
        else:
            lines.append(add if dep in em.fresh_ids else f"if ({dep}.is_valid()) {add}")
    return lines


def dummy_task(em: OrchestrationEmitter, call: Call, rule: DummyTask) -> None:
    """``system.task_dummy``: a dependency-only task (§2.7). With deps that may all be invalid it is
    submitted only when one is valid, else its TaskId stays invalid."""
    var = em._defined(call)
    barrier = bool(call.attrs.get("dummy_task"))
    k = em.dummies
    em.dummies += 1
    base = f"phase_fence_barrier_{k}" if barrier else f"dummy_{k}"
    params, outs = em.fresh(f"params_{base}"), em.fresh(f"{base}_outs")
    deps: list[str] = []
    for dep in call.attrs.get("manual_dep_edges") or []:
        text = em.expr(dep)
        if text != "PTO2TaskId::invalid()" and text not in deps:
            deps.append(text)
    doc = em.doc
    doc.line()
    doc.line(f"// Phase-fence barrier {k}: dependency-only dummy task" if barrier
             else f"// Dummy task {k}: dependency-only fan-in")
    doc.line(f"CoreTaskArgs {params};")
    count = f"{params}_deps_count"
    if deps:
        for line in dep_lines(em, deps, f"{params}_deps", count):
            doc.line(line)
        doc.line(f"{params}.set_dependencies({params}_deps, {count});")
    submit = f"TaskOutputTensors {outs} = {rule.mnemonic}({params});"
    if all(d in em.fresh_ids for d in deps):
        doc.line(submit)
        doc.line(em.define(var, f"{outs}.task_id()", call.span))
        em.fresh_ids.add(em.name_of(var))
        return None
    doc.line(em.define(var, "PTO2TaskId::invalid()", call.span))
    name = em.name_of(var)
    with doc.block(f"if ({count} > 0) {{"):
        doc.line(submit)
        doc.line(f"{name} = {outs}.task_id();")
    return None



def dump_markers(em: OrchestrationEmitter, call: Call | Submit, params: str, tensors: list[Expr]) -> None:
    """``params.dump(t);`` for each tensor ``pl.dump_tag`` / ``dumps=[...]`` selects (a tensor the
    task takes: the runtime marks arguments already added)."""
    passed = {em.expr(t) for t in tensors}
    for var in call.attrs.get("dump_vars") or []:
        name = em.expr(var)
        if name not in passed:
            raise CodegenError(f"no rule for dumping '{var.name_hint}', which the task does not take, in orchestration",
                               call.span, "dumps=[...] lists tensors passed to this task")
        em.doc.line(f"{params}.dump({name});")
