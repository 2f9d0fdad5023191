"""DSL programs for the front-pass tests, grouped by the pass they exercise.

Each entry is the source of one ``@pl.program``; ``parse(name)`` returns its IR. The pipeline test
runs surface -> ssa on every program here.
"""

from __future__ import annotations

import textwrap

import pypto.language as pl
from pypto import ir

_TENSOR = "pl.Tensor[[16, 16], pl.FP32]"
_TILE = "pl.Tile[[16, 16], pl.FP32]"

INLINE_FUNCTIONS = {
    "mixed_control_flow": """
        @pl.program
        class MixedInline:
            @pl.function(type=pl.FunctionType.Inline)
            def half(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                h = x // 2
                return h

            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                init: pl.Scalar[pl.INDEX] = 0
                for i, (acc,) in pl.range(n, init_values=(init,)):
                    nxt = pl.yield_(acc + i)
                m: pl.Scalar[pl.INDEX] = nxt
                while m > 1:
                    if m > 10:
                        if m % 2 == 0:
                            m = self.half(m)
                        else:
                            m = m - 1
                    else:
                        m = m - 2
                return m + nxt
    """,
    "calls_inside_scopes": f"""
        @pl.program
        class Scoped:
            @pl.function(type=pl.FunctionType.Inline)
            def twice(self, x: {_TENSOR}) -> {_TENSOR}:
                y: {_TENSOR} = pl.add(x, x)
                return y

            @pl.function(auto_scope=False)
            def main(self, a: {_TENSOR}) -> {_TENSOR}:
                with pl.scope():
                    r: {_TENSOR} = self.twice(a)
                with pl.at(level=pl.Level.CORE_GROUP):
                    s: {_TENSOR} = self.twice(r)
                return s
    """,
    "assign_call": f"""
        @pl.program
        class AssignCall:
            @pl.function(type=pl.FunctionType.Inline)
            def sq(self, x: {_TENSOR}) -> {_TENSOR}:
                y: {_TENSOR} = pl.mul(x, x)
                return y

            @pl.function
            def main(self, a: {_TENSOR}) -> {_TENSOR}:
                r: {_TENSOR} = self.sq(a)
                return r
    """,
    "tuple_and_discarded_result": """
        @pl.program
        class TupleCall:
            @pl.function(type=pl.FunctionType.Inline)
            def pair(self, x: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]]:
                a = x + 1
                b = x * 2
                return a, b

            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                u, v = self.pair(n)
                self.pair(u)
                return u + v
    """,
    "inline_calls_inline_in_loop_and_if": """
        @pl.program
        class Chain:
            @pl.function(type=pl.FunctionType.Inline)
            def twice(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                y = x * 2
                return y

            @pl.function(type=pl.FunctionType.Inline)
            def bump(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                z = self.twice(x)
                w = z + 1
                return w

            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(n):
                    if i > 1:
                        acc = self.bump(acc)
                    else:
                        acc = acc + i
                return acc
    """,
    "parameter_reassigned": """
        @pl.program
        class Clamp:
            @pl.function(type=pl.FunctionType.Inline)
            def clamp(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                if x > 10:
                    x = 10
                return x

            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                m = self.clamp(n)
                return m + n
    """,
    "loop_inside_two_sites": """
        @pl.program
        class Sums:
            @pl.function(type=pl.FunctionType.Inline)
            def total(self, k: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                s: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(k):
                    s = s + i
                return s

            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                a = self.total(n)
                b = self.total(a)
                return b
    """,
}

UNROLL_LOOPS = {
    "unroll_in_nested_ifs_in_while": """
        @pl.program
        class UnrollWhile:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                while acc < n:
                    if acc > 3:
                        if n > 8:
                            for k in pl.unroll(2):
                                acc = acc + k + 1
                        else:
                            acc = acc + 1
                    else:
                        acc = acc + 2
                return acc
    """,
    "unroll_inside_incore_scope": f"""
        @pl.program
        class ScopedUnroll:
            @pl.function
            def main(self, x: {_TENSOR}) -> {_TENSOR}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    for k in pl.unroll(3):
                        x = pl.add(x, x)
                return x
    """,
    "spec_example": """
        @pl.program
        class Unroll2:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                for i in pl.unroll(2):
                    x = x + i
                return x
    """,
    "start_stop_step": """
        @pl.program
        class Strided:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for k in pl.unroll(0, 6, 2):
                    acc = acc + x * k
                return acc
    """,
    "nested_unroll": """
        @pl.program
        class Nested:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                for i in pl.unroll(2):
                    for j in pl.unroll(1, 3):
                        x = x + i * j
                return x
    """,
    "unroll_in_loop_with_iter_args": """
        @pl.program
        class InLoop:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                init: pl.Scalar[pl.INDEX] = 1
                for i, (acc,) in pl.range(n, init_values=(init,)):
                    t = acc
                    for k in pl.unroll(3):
                        t = t + k
                    out = pl.yield_(t)
                return out
    """,
    "unroll_with_if_and_while": """
        @pl.program
        class Mixed:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for k in pl.unroll(2):
                    if k == 0:
                        acc = acc + n
                    while acc < 10:
                        acc = acc + k + 1
                return acc
    """,
}

CTRL_FLOW_TRANSFORM = {
    "iter_args_and_continue_in_nested_ifs": """
        @pl.program
        class NestedSkip:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                init: pl.Scalar[pl.INDEX] = 0
                for i, (s,) in pl.range(n, init_values=(init,)):
                    total = pl.yield_(s + i)
                k: pl.Scalar[pl.INDEX] = 0
                acc: pl.Scalar[pl.INDEX] = total
                while k < n:
                    k = k + 1
                    if k > 2:
                        if k % 3 == 0:
                            continue
                        acc = acc + k
                    acc = acc + 1
                return acc
    """,
    "jumps_in_loops_with_explicit_yields": """
        @pl.program
        class YieldJumps:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                a0: pl.Scalar[pl.INDEX] = 1
                b0: pl.Scalar[pl.INDEX] = 2
                for i, (a, b) in pl.range(10, init_values=(a0, b0)):
                    if i > n + 3:
                        break
                    if i % 3 == 0:
                        continue
                    a2, b2 = pl.yield_(b + i, a)
                for (k, s) in pl.while_(init_values=(a2, b2)):
                    pl.cond(k < 40)
                    if s % 5 == 0:
                        break
                    k2, s2 = pl.yield_(k + 3, s + k)
                return s2 + k2
    """,
    "break_inside_incore_scope": f"""
        @pl.program
        class ScopedBreak:
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:
                y: {_TENSOR} = pl.add(x, x)
                with pl.at(level=pl.Level.CORE_GROUP):
                    for i in pl.range(n):
                        if i > 2:
                            break
                        y = pl.add(y, x)
                return y
    """,
    "continue_in_kernel": f"""
        @pl.program
        class Skip:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, x: {_TENSOR}, out: pl.Out[{_TENSOR}]) -> {_TENSOR}:
                t: {_TILE} = pl.load(x, [0, 0], [16, 16])
                for i in pl.range(4):
                    if i == 2:
                        continue
                    t = pl.add(t, t)
                r: {_TENSOR} = pl.store(t, [0, 0], out)
                return r
    """,
    "break_in_for": """
        @pl.program
        class Stop:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(n):
                    if acc > 10:
                        break
                    acc = acc + i
                return acc
    """,
    "early_returns_in_loops": """
        @pl.program
        class EarlyReturns:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(n):
                    for j in pl.range(3):
                        acc = acc + j
                        if acc > 10:
                            return acc
                    acc = acc + i
                k: pl.Scalar[pl.INDEX] = 0
                while k < n:
                    k = k + 1
                    if k == 5:
                        return acc
                    acc = acc + 1
                return acc
    """,
    "break_and_continue_in_while": """
        @pl.program
        class Both:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                i: pl.Scalar[pl.INDEX] = 0
                acc: pl.Scalar[pl.INDEX] = 0
                while i < n:
                    i = i + 1
                    if i % 2 == 0:
                        continue
                    if acc > 20:
                        break
                    acc = acc + i
                return acc
    """,
    "inner_loop_break": """
        @pl.program
        class Inner:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(n):
                    for j in pl.range(n):
                        if j > i:
                            break
                        acc = acc + j
                return acc
    """,
    "negative_step_nested_break": """
        @pl.program
        class Down:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(10, 0, -1):
                    if i < n:
                        if acc > 5:
                            break
                        acc = acc + 2
                    acc = acc + 1
                return acc
    """,
    "orchestration_keeps_jumps": """
        @pl.program
        class Orch:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                for i in pl.range(n):
                    if i > 3:
                        break
                return n
    """,
}

CONVERT_TO_SSA = {
    "reassigned_inside_scopes": f"""
        @pl.program
        class Scopes:
            @pl.function(auto_scope=False)
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:
                y: {_TENSOR} = pl.add(x, x)
                with pl.scope():
                    y = pl.mul(y, x)
                with pl.at(level=pl.Level.CORE_GROUP):
                    for i in pl.range(n):
                        y = pl.add(y, x)
                return y
    """,
    "accumulate": """
        @pl.program
        class Acc:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(n):
                    acc = acc + i
                return acc
    """,
    "if_phis": """
        @pl.program
        class Phi:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x: pl.Scalar[pl.INDEX] = 1
                y: pl.Scalar[pl.INDEX] = 2
                if n > 3:
                    x = n
                else:
                    y = n
                if x > y:
                    x = x - y
                return x + y
    """,
    "nested_ifs": """
        @pl.program
        class NestedIf:
            @pl.function
            def main(self, a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                r: pl.Scalar[pl.INDEX] = 0
                if a > b:
                    if a > 10:
                        r = a
                    else:
                        r = b
                        a = a + 1
                else:
                    r = a + b
                return r + a
    """,
    "while_loop": """
        @pl.program
        class Count:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                i: pl.Scalar[pl.INDEX] = 0
                total: pl.Scalar[pl.INDEX] = 0
                while i < n:
                    total = total + i * i
                    i = i + 1
                return total
    """,
    "iter_args_plus_reassigned": """
        @pl.program
        class Mixed:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                init: pl.Scalar[pl.INDEX] = 0
                count: pl.Scalar[pl.INDEX] = 0
                for i, (s,) in pl.range(n, init_values=(init,)):
                    count = count + 1
                    s2 = pl.yield_(s + i)
                return s2 + count
    """,
    "loops_with_tensors_and_break": f"""
        @pl.program
        class Tensors:
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:
                y: {_TENSOR} = pl.add(x, x)
                for i in pl.range(n):
                    if i > 2:
                        break
                    y = pl.add(y, x)
                return y
    """,
    "value_first_defined_in_loop": f"""
        @pl.program
        class Promote:
            @pl.function(type=pl.FunctionType.InCore)
            def step(self, x: {_TENSOR}, out: pl.Out[{_TENSOR}]) -> {_TENSOR}:
                t: {_TILE} = pl.load(x, [0, 0], [16, 16])
                r: {_TENSOR} = pl.store(t, [0, 0], out)
                return r

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {_TENSOR}, out: pl.Out[{_TENSOR}]) -> {_TENSOR}:
                for i in pl.range(2):
                    y = self.step(x, out)
                return y
    """,
}

SIMPLIFY = {
    "division_by_loop_and_branch_bounds": """
        @pl.program
        class Bounded:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(8):
                    row: pl.Scalar[pl.INDEX] = i // 8 + (i + 8) // 8
                    col: pl.Scalar[pl.INDEX] = i % 8 + pl.min(i, 9) + pl.max(i, 7)
                    acc = acc + row * 100 + col
                    if n >= 2:
                        if n < 6:
                            acc = acc + n // 8 + n % 8 + pl.max(n, 1)
                acc = acc + (n + 8) // 8
                return acc
    """,
    "while_with_decided_nested_ifs": """
        @pl.program
        class WhileDecided:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                limit: pl.Scalar[pl.INDEX] = 3 * 4
                acc: pl.Scalar[pl.INDEX] = 0
                i: pl.Scalar[pl.INDEX] = 0
                while i < n:
                    if limit > 10:
                        if limit < 20:
                            acc = acc + i * 1
                    i = i + 1
                return acc
    """,
    "constants_inside_scope": f"""
        @pl.program
        class ScopedConsts:
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:
                k: pl.Scalar[pl.INDEX] = 2
                with pl.at(level=pl.Level.CORE_GROUP):
                    m = k * 8 - 16
                    for i in pl.range(m, n):
                        x = pl.add(x, x)
                return x
    """,
    "constants_into_types": """
        @pl.program
        class Consts:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8, 16], pl.FP32]:
                n: pl.Scalar[pl.INDEX] = 4
                m: pl.Scalar[pl.INDEX] = n * 2 + 0
                t = pl.tensor.create([m, 16], dtype=pl.FP32)
                return t
    """,
    "identities": """
        @pl.program
        class Ident:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                a = x + 0
                b = a * 1
                c = b // 1
                d = c - c
                e = 3 * 4 - 2
                return c + d + e
    """,
    "branches_decided_by_ranges": """
        @pl.program
        class Ranges:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(8):
                    if i < 8:
                        acc = acc + i
                    if i >= 4:
                        if i > 2:
                            acc = acc + x
                return acc
    """,
    "zero_and_one_trip_loops": """
        @pl.program
        class Trips:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = x
                for i in pl.range(0):
                    acc = acc + 100
                for j in pl.range(3, 4):
                    acc = acc * j
                return acc
    """,
    "dead_scalars": f"""
        @pl.program
        class Dead:
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:
                unused = n * 3
                chain = unused + 1
                d = pl.tensor.dim(x, 0)
                y: {_TENSOR} = pl.add(x, x)
                if n > 2:
                    tmp = n + 1
                    y = pl.mul(y, x)
                return y
    """,
}

_HELPER = f"""
            @pl.function
            def helper(self, x: {_TENSOR}) -> {_TENSOR}:
                y: {_TENSOR} = pl.add(x, x)
                return y
"""

NORMALIZE_STMT_STRUCTURE = {
    "nested_ifs_in_while_with_iter_args": f"""
        @pl.program
        class NestedWhile:{_HELPER}
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                init: pl.Scalar[pl.INDEX] = 0
                for i, (s,) in pl.range(n, init_values=(init,)):
                    total = pl.yield_(s + i)
                k: pl.Scalar[pl.INDEX] = 0
                while k < total:
                    if k > 2:
                        if k < 100:
                            dead = k * 3
                            self.helper(x)
                    k = k + 1
                return k
    """,
    "scope_body_after_dead_code": f"""
        @pl.program
        class ScopeBody:{_HELPER}
            @pl.function(auto_scope=False)
            def main(self, x: {_TENSOR}) -> {_TENSOR}:
                with pl.scope():
                    dead = 3 + 4
                    self.helper(x)
                return x
    """,
    "continue_without_carries": f"""
        @pl.program
        class Skip:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, x: {_TENSOR}, out: pl.Out[{_TENSOR}]) -> {_TENSOR}:
                t: {_TILE} = pl.load(x, [0, 0], [16, 16])
                for i in pl.range(4):
                    if i == 2:
                        continue
                    pl.store(t, [0, 0], out)
                return out
    """,
    "dead_code_around_a_call": f"""
        @pl.program
        class DeadAround:{_HELPER}
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:
                for i in pl.range(n):
                    unused = i * 2
                    self.helper(x)
                return x
    """,
    "unroll_of_one_in_if": f"""
        @pl.program
        class UnrollOne:{_HELPER}
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:
                if n > 1:
                    for k in pl.unroll(1):
                        self.helper(x)
                return x
    """,
    "one_trip_loop_after_dead_code": f"""
        @pl.program
        class OneTrip:{_HELPER}
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:
                if n > 1:
                    dead = n + 1
                    for j in pl.range(1):
                        self.helper(x)
                return x
    """,
    "collapsed_branch_in_while": f"""
        @pl.program
        class Collapsed:{_HELPER}
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                i: pl.Scalar[pl.INDEX] = 0
                while i < n:
                    for j in pl.range(2):
                        tmp = j + 1
                        if j < 2:
                            self.helper(x)
                    i = i + 1
                return i
    """,
}

FLATTEN_CALL_EXPR = {
    "calls_in_while_and_nested_ifs": f"""
        @pl.program
        class WhileCalls:
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:
                for i, (s,) in pl.range(n, init_values=(x,)):
                    s2 = pl.yield_(pl.add(pl.mul(s, x), x))
                k: pl.Scalar[pl.INDEX] = 0
                y: {_TENSOR} = s2
                while k < n:
                    if k > 1:
                        if pl.tensor.dim(x, 0) > k:
                            y = pl.add(pl.exp(y), x)
                    k = k + 1
                return y
    """,
    "nested_call_inside_scope": f"""
        @pl.program
        class ScopedCall:
            @pl.function
            def main(self, x: {_TENSOR}) -> {_TENSOR}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    y: {_TENSOR} = pl.add(pl.exp(x), x)
                return y
    """,
    "nested_op_calls": f"""
        @pl.program
        class NestedOps:
            @pl.function
            def main(self, a: {_TENSOR}, b: {_TENSOR}) -> {_TENSOR}:
                c: {_TENSOR} = pl.add(pl.mul(a, b), pl.exp(a))
                return c
    """,
    "call_in_if_condition": f"""
        @pl.program
        class CondCall:
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                r: pl.Scalar[pl.INDEX] = n
                if pl.tensor.dim(x, 0) > n:
                    r = n + 1
                return r
    """,
    "call_in_for_range": f"""
        @pl.program
        class RangeCall:
            @pl.function
            def main(self, x: {_TENSOR}) -> pl.Scalar[pl.INDEX]:
                acc: pl.Scalar[pl.INDEX] = 0
                for i in pl.range(pl.tensor.dim(x, 1)):
                    acc = acc + i
                return acc
    """,
    "call_in_return_and_yield": f"""
        @pl.program
        class RetCall:
            @pl.function
            def main(self, x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:
                for i, (s,) in pl.range(n, init_values=(x,)):
                    s2 = pl.yield_(pl.add(s, x))
                return pl.mul(s2, x)
    """,
    "function_call_argument": f"""
        @pl.program
        class FnArg:
            @pl.function
            def helper(self, x: {_TENSOR}) -> {_TENSOR}:
                y: {_TENSOR} = pl.add(x, x)
                return y

            @pl.function
            def main(self, a: {_TENSOR}) -> {_TENSOR}:
                r: {_TENSOR} = self.helper(self.helper(pl.exp(a)))
                return r
    """,
}

ALL = {
    "InlineFunctions": INLINE_FUNCTIONS,
    "UnrollLoops": UNROLL_LOOPS,
    "CtrlFlowTransform": CTRL_FLOW_TRANSFORM,
    "ConvertToSSA": CONVERT_TO_SSA,
    "Simplify": SIMPLIFY,
    "NormalizeStmtStructure": NORMALIZE_STMT_STRUCTURE,
    "FlattenCallExpr": FLATTEN_CALL_EXPR,
}


def parse(source: str) -> ir.Program:
    """The IR of one program source of this module."""
    return pl.parse("import pypto.language as pl\n\n" + textwrap.dedent(source))


def every_program() -> list[tuple[str, str]]:
    """``(id, source)`` for every program of every group."""
    return [(f"{group}.{name}", src) for group, programs in ALL.items() for name, src in programs.items()]
