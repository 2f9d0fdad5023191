"""Bad input to a ``@pl.jit`` call: a clear error naming the function, parameter or user line, raised
before anything is compiled or run."""

from __future__ import annotations

from pathlib import Path

import jit_kernels as K
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserError
from pypto.runtime import RunConfig
from pypto.runtime.errors import SimulatorError

KERNELS = Path(K.__file__).name
TYPED = f"{K.__file__}:{K.typed.func.__code__.co_firstlineno + 1}"  # the def line, below @pl.jit


@pytest.fixture(autouse=True)
def build_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    return tmp_path


def f32(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.float32)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: K.scaled_add(f32(32, 64), f32(32, 64), f32(32, 64)),
         "@pl.jit function 'scaled_add': missing a required argument: 'alpha'"),
        (lambda: K.scaled_add(f32(32, 64), f32(32, 64), f32(32, 64), 1.0, 2.0),
         "@pl.jit function 'scaled_add': too many positional arguments"),
        (lambda: K.scaled_add(f32(32, 64), f32(32, 64), f32(32, 64), [1.0]),
         "@pl.jit function 'scaled_add': argument 'alpha' of type list is neither a tensor nor a hashable scalar"),
        (lambda: K.scaled_add(f32(32, 64), f32(32, 64), f32(32, 64), pl.RUNTIME),
         "@pl.jit function 'scaled_add': pl.RUNTIME passed for 'alpha'"),
        (lambda: K.runtime_n(f32(32, 64), f32(32, 64)),
         "@pl.jit function 'runtime_n': pl.RUNTIME passed for 'n'"),
        (lambda: K.scaled_add(np.zeros((32, 64)), f32(32, 64), f32(32, 64), 1.0),
         "@pl.jit function 'scaled_add': Unsupported numpy dtype float64 for parameter 'a'"),
        (lambda: K.typed(f32(32, 64, 1), f32(32, 64)),
         f"@pl.jit function 'typed': parameter 'a' ({TYPED}) is declared with rank 2, got a tensor of "
         "shape [32, 64, 1]"),
        (lambda: K.typed(f32(16, 32), f32(16, 32)),
         f"@pl.jit function 'typed': parameter 'a' ({TYPED}) is declared with shape [32, 64], got a tensor of "
         "shape [16, 32]"),
        (lambda: K.typed(np.zeros((32, 64), np.float16), f32(32, 64)),
         f"@pl.jit function 'typed': parameter 'a' ({TYPED}) is declared FP32, got a FP16 tensor"),
        (lambda: K.scaled_add(torch.zeros(32, 64, dtype=torch.float64), f32(32, 64), f32(32, 64), 1.0),
         "@pl.jit function 'scaled_add': Unsupported torch dtype torch.float64 for parameter 'a'"),
        (lambda: K.scaled_add(torch.zeros(32, 64, device="meta"), f32(32, 64), f32(32, 64), 1.0),
         "@pl.jit function 'scaled_add': parameter 'a': the tensor is on meta; pypto runs on the a2a3sim simulator "
         "and takes CPU tensors (move it with .cpu())"),
        (lambda: K.add_rows(f32(32, 64), f32(32, 64), f32(32, 64)),
         "@pl.jit.incore function 'add_rows' is a helper: call it from a @pl.jit function"),
    ],
)
def test_bad_arguments_are_type_errors_naming_the_function(call, message: str) -> None:
    with pytest.raises(TypeError) as err:
        call()
    assert str(err.value).startswith(message)


def test_a_body_error_points_at_the_users_line() -> None:
    with pytest.raises(ParserError) as err:
        K.bad_body(f32(32, 64), f32(32, 64))
    line = K.bad_body.func.__code__.co_firstlineno + 4  # the pl.store line, under @pl.jit and the def
    assert (Path(err.value.location.filename).name, err.value.location.begin_line) == (KERNELS, line)
    assert "pl.store(pl.no_such_op(t), [0, 0], c)" in str(err.value)


def test_a_function_without_source_on_disk_is_an_os_error() -> None:
    namespace: dict[str, object] = {"pl": pl}
    exec("def made(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n    return c\n", namespace)
    kernel = pl.jit(namespace["made"])
    with pytest.raises(OSError, match=r"@pl.jit cannot retrieve source code for 'made' \(defined at <string>:1\)"):
        kernel(f32(4, 4), f32(4, 4))


@pytest.mark.parametrize("platform", ["a2a3", "a5sim", "a5"])
def test_a_platform_that_cannot_run_here_is_refused_before_compiling(platform: str, build_dir: Path) -> None:
    config = RunConfig(platform=platform)
    with pytest.raises(SimulatorError, match=f"platform '{platform}' cannot run here; only a2a3sim runs here"):
        K.scaled_add(f32(32, 64), f32(32, 64), f32(32, 64), 1.0, config=config)
    assert not any(build_dir.iterdir())
    compiled = K.scaled_add.compile(f32(32, 64), f32(32, 64), f32(32, 64), 1.0, config=config)
    assert compiled.platform == platform  # compiling for a platform that does not run here is allowed


def test_an_error_about_an_alias_names_the_users_variable() -> None:
    with pytest.raises(ParserError) as err:
        K.recast_wrong(f32(32, 64), np.zeros((32, 64), np.float16))
    assert str(err.value).startswith("Cannot reassign 'x' with a different type")
    assert err.value.location.begin_line == K.recast_wrong.func.__code__.co_firstlineno + 6


def test_a_tensor_parameter_given_something_else_has_no_metadata() -> None:
    with pytest.raises(ValueError, match="@pl.jit: missing inferred tensor metadata for parameter 'b' of "
                       "'scaled_add': got list"):
        K.scaled_add(f32(32, 64), [[0.0] * 64] * 32, f32(32, 64), 1.0)


def test_a_helper_call_with_a_keyword_the_helper_lacks_points_at_the_call() -> None:
    with pytest.raises(ParserError) as err:
        K.wrong_keyword(f32(32, 64), f32(32, 64), f32(32, 64))
    assert str(err.value).startswith("@pl.jit function 'wrong_keyword': call of helper 'add_rows' "
                                     "passes keywords its parameters do not take in order")
    assert err.value.location.begin_line == K.wrong_keyword.func.__code__.co_firstlineno + 2


@pytest.mark.parametrize("alpha", ["x", None, (1.0,)])
def test_a_scalar_of_the_wrong_kind_is_refused_before_compiling(alpha: object, build_dir: Path) -> None:
    where = f"{K.__file__}:{K.scaled_add.func.__code__.co_firstlineno + 1}"
    message = (f"@pl.jit function 'scaled_add': scalar parameter 'alpha' ({where}) takes a bool, int or float, "
               f"got {type(alpha).__name__} {alpha!r}")
    cached = K.scaled_add.cache_size()
    for action in (K.scaled_add.compile, K.scaled_add):
        with pytest.raises(TypeError) as err:
            action(f32(32, 64), f32(32, 64), f32(32, 64), alpha)
        assert str(err.value) == message
    assert K.scaled_add.cache_size() == cached and not any(build_dir.iterdir())


@pytest.mark.parametrize("step", ["compile", "lower"])
def test_a_pass_error_after_specialisation_names_the_users_variable(step: str) -> None:
    from pypto.transform.errors import PassError

    with pytest.raises(PassError) as err:
        getattr(K.loop_local, step)(f32(32, 64), f32(32, 64))
    line = K.loop_local.func.__code__.co_firstlineno + 3  # the loop, in which t = pl.add(t, t) becomes t_v1
    lines = str(err.value).splitlines()
    assert (lines[0], lines[1].lstrip()) == (
        "ConvertToSSA: 't' is first assigned inside this loop and read after it or in a later iteration; "
        "give it a value before the loop", f"--> {K.__file__}:{line}:9")
    assert isinstance(err.value.__cause__, PassError) and "'t_v1'" in err.value.__cause__.args[0]


def test_the_config_compiles_as_pypto_runtime_run_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from pypto.runtime import IgnoredOptionWarning
    from pypto.runtime import config as config_module

    args = (f32(32, 64), f32(32, 64), f32(32, 64), 1.0)
    with pytest.raises(TypeError, match="config must be a pypto.runtime.RunConfig, got dict"):
        K.scaled_add.compile(*args, config={"platform": "a2a3sim"})
    with pytest.raises(ValueError, match="distributed_config: multi-chip programs are not supported; pypto runs one"):
        K.scaled_add.compile(*args, config=RunConfig(distributed_config=object()))
    monkeypatch.setattr(config_module, "_warned", set())
    with pytest.warns(IgnoredOptionWarning, match="RunConfig.compile_profiling has no effect on a2a3sim"):
        K.scaled_add.compile(*args, config=RunConfig(compile_profiling=True))


def test_a_failed_compile_leaves_no_empty_build_folder(build_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pypto.compile

    def fail(program: object, output_dir: Path) -> None:
        assert output_dir.parent == build_dir and output_dir.name.startswith("_jit_scaled_add_")
        raise RuntimeError("the compile failed")

    monkeypatch.setattr(pypto.compile, "compile", fail)
    with pytest.raises(RuntimeError, match="the compile failed"):
        K.scaled_add.compile(f32(8, 64), f32(8, 64), f32(8, 64), 7.0)  # a key no other test compiles
    assert not any(build_dir.iterdir())
