"""codegen/cpp_target_names.py: the names the generated C++'s headers declare, scanned from them.

The scanner keeps what a header declares at namespace scope; the checked-in module must equal a
fresh scan of the installed simulator's headers (rerun scripts/gen_cpp_target_names.py if not).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pypto.codegen.cpp_names import cpp_identifier
from pypto.runtime import simulator_missing_reason

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gen_cpp_target_names.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cpp_target_names", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


HEADER = """
#define PTO_MACRO(x) x
typedef _Float16 half;
typedef struct { int a; } anon_t, *anon_ptr;
typedef void (*callback_t)(int);
namespace pto {
using Shape2 = int[2];
enum PipeKind { PIPE_A = 1, PIPE_B };
enum class Mode : int { hidden_enumerator };
template <typename T, int N> struct TileLike {
    using Inner = T;
    int member;
    void method(int arg) { int local = arg; }
};
struct Forward;
constexpr int kBlock = 32;
template <typename T> inline void Helper(T &value) { int inside = 0; }
}  // namespace pto
extern "C" { int c_global; }
"""


def test_the_scanner_keeps_namespace_scope_declarations(tmp_path: Path) -> None:
    header = tmp_path / "h.hpp"
    header.write_text(HEADER)
    gen = _generator()
    assert gen.scan(header, functions=False) == {
        "PTO_MACRO", "half", "anon_t", "anon_ptr", "callback_t", "Shape2", "PipeKind", "PIPE_A", "PIPE_B", "Mode",
        "TileLike", "Forward", "kBlock", "c_global"}
    assert gen.scan(header, functions=True) - gen.scan(header, functions=False) == {"Helper"}


@pytest.mark.parametrize("name", ["half", "bfloat16_t", "int8_t", "uint64_t", "size_t", "NULL", "PIPE_V",
                                  "EVENT_ID0", "Tile", "GlobalTensor", "ChipTensor", "float", "double"])
def test_header_names_and_keywords_get_a_suffix(name: str) -> None:
    assert cpp_identifier(name) == name + "_"


@pytest.mark.parametrize("name", ["x", "tile", "acc", "row_max", "out", "tmp", "scale"])
def test_ordinary_names_are_kept(name: str) -> None:
    assert cpp_identifier(name) == name


@pytest.mark.skipif(simulator_missing_reason() is not None, reason=f"headers: {simulator_missing_reason()}")
def test_the_checked_in_names_are_those_of_the_installed_headers() -> None:
    from pypto.runtime.install import find_simulator

    gen = _generator()
    fresh = gen.render(gen.target_names(find_simulator().simpler_root, gen.c_include_dirs()))
    assert fresh == gen.OUTPUT.read_text(), "stale: run python scripts/gen_cpp_target_names.py"
