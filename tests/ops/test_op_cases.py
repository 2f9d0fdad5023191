"""Every catalog op builds with the expected result type and rejects bad input (cases in op_cases.py)."""

from __future__ import annotations

import pytest
from op_cases import BUILDS, REJECTS, Build, Reject

from pypto import ir


def _id(case: Build | Reject) -> str:
    return case.op


@pytest.mark.parametrize("case", BUILDS, ids=_id)
def test_build(case: Build) -> None:
    call = case.build()
    assert isinstance(call, ir.Call)
    assert call.op.name == case.op
    assert str(call.type) == case.expected


@pytest.mark.parametrize("case", REJECTS, ids=_id)
def test_reject(case: Reject) -> None:
    with pytest.raises(case.error, match=case.match) as info:
        case.build()
    assert case.op in str(info.value)
