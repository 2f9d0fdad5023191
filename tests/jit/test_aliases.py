"""Fresh aliases for re-assigned names (spec/runtime.md §1.3)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from pypto.jit.aliases import Aliases
from pypto.jit.aliases import user_names


def renamed(source: str) -> str:
    node = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(node, ast.FunctionDef)
    Aliases(node).run(node)
    return ast.unparse(node)


def test_a_reassignment_at_the_first_depth_gets_a_fresh_alias_and_later_reads_follow() -> None:
    assert renamed("""
        def f(a, c):
            c = g(a, c)
            x = h(c)
            x = k(x)
            return x, c
    """) == "def f(a, c):\n    c_v1 = g(a, c)\n    x = h(c_v1)\n    x_v1 = k(x)\n    return (x_v1, c_v1)"


def test_a_deeper_reassignment_keeps_the_current_name() -> None:
    assert renamed("""
        def f(a):
            acc = z(a)
            for i in r(4):
                acc = g(acc, i)
            acc = h(acc)
            return acc
    """) == ("def f(a):\n    acc = z(a)\n    for i in r(4):\n        acc = g(acc, i)\n    acc_v1 = h(acc)\n"
             "    return acc_v1")


def test_names_of_a_then_branch_are_forgotten_before_the_else_branch() -> None:
    assert renamed("""
        def f(a):
            if a:
                t = g(a)
            else:
                t = h(a)
            return t
    """) == "def f(a):\n    if a:\n        t = g(a)\n    else:\n        t = h(a)\n    return t"


def test_an_alias_that_would_clash_skips_the_taken_name() -> None:
    assert renamed("""
        def f(x, x_v1):
            x = g(x, x_v1)
            return x
    """) == "def f(x, x_v1):\n    x_v2 = g(x, x_v1)\n    return x_v2"


def test_messages_get_the_users_names_back_whole_words_longest_first() -> None:
    assert user_names("'x_v1' and 'x_v12' but not 'ax_v1'", {"x_v1": "x", "x_v12": "x"}) == (
        "'x' and 'x' but not 'ax_v1'"
    )


def test_an_error_naming_an_alias_is_copied_with_its_class_and_fields() -> None:
    from pypto.codegen.errors import CodegenError
    from pypto.jit.aliases import user_error

    err = CodegenError("no rule for 'x_v1' in orchestration")
    err.hint = "store x_v1 first"
    copy = user_error(err, {"x_v1": "x"})
    assert type(copy) is CodegenError and copy is not err
    assert copy.args == ("no rule for 'x' in orchestration",)
    assert (copy.hint, err.hint) == ("store x first", "store x_v1 first")
    assert user_error(ValueError("nothing renamed here"), {"x_v1": "x"}) is None


def test_a_same_depth_name_a_loop_body_writes_first_is_a_fresh_local_of_the_loop() -> None:
    assert renamed("""
        def f(a):
            t = g(a)
            for i in r(2):
                t = h(i)
                k(t)
            return a
    """) == "def f(a):\n    t = g(a)\n    for i in r(2):\n        t_v1 = h(i)\n        k(t_v1)\n    return a"


@pytest.mark.parametrize(
    "body",
    [
        "t = h(t)",  # read first: loop-carried
        "if i:\n                    t = h(i)",  # written in one branch only: the old value may flow on
        "t += 1",
    ],
)
def test_a_loop_carried_name_keeps_its_name(body: str) -> None:
    source = f"""
        def f(a):
            t = g(a)
            for i in r(2):
                {body}
            return t
    """
    assert "_v1" not in renamed(source)


def test_a_name_the_loop_writes_first_but_code_after_it_reads_stays_carried() -> None:
    assert "_v1" not in renamed("""
        def f(a):
            with s():
                t = g(a)
                for i in r(2):
                    t = h(i)
            return t
    """)


def test_an_augmented_store_into_a_name_reads_it_first() -> None:
    """``t[i] += 1`` reads ``t`` before the body rebinds it: ``t`` stays loop-carried."""
    assert "_v1" not in renamed("""
        def f(a):
            t = g(a)
            for i in r(2):
                t[i] += 1
                t = h(i)
            return a
    """)


def test_a_subscript_store_writes_into_the_current_name() -> None:
    assert renamed("""
        def f(a):
            t = z(a)
            t[0:4, :] = a[i]
            t = g(t)
            t[i] = a
            return t
    """) == "def f(a):\n    t = z(a)\n    t[0:4, :] = a[i]\n    t_v1 = g(t)\n    t_v1[i] = a\n    return t_v1"
