"""The ``pypto`` command line: parse a DSL file, print its IR, or compile it through the pipeline.

    pypto compile examples/tile_add.py -o out/tile_add   # run the pipeline, dump IR after each pass
    pypto parse examples/tile_add.py [--concise]          # print the parsed IR
    pypto passes                                          # list the pipeline's passes

The input file is read as text and parsed from its syntax tree; it is never executed. Errors in
the input are reported as pypto diagnostics (exit status 1), never as Python tracebacks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pypto.ir.errors import PyptoError


def _load(path: str):
    import pypto.language as pl

    source = Path(path)
    if not source.is_file():
        raise PyptoError(f"input file '{path}' does not exist")
    return pl.loads_program(str(source))


def _cmd_parse(args: argparse.Namespace) -> int:
    program = _load(args.file)
    print(program.as_python(concise=args.concise))
    return 0


def _cmd_compile(args: argparse.Namespace) -> int:
    from pypto import ir

    program = _load(args.file)
    result = ir.compile(program, output_dir=args.output, verify=args.verify)
    out = Path(args.output)
    (out / "final.pyir").write_text(result.as_python() + "\n")
    files = sorted(p.name for p in out.iterdir())
    print(f"compiled {args.file}: {len(result.functions)} function(s); wrote {len(files)} file(s) to {out}/")
    for name in files:
        print(f"  {name}")
    return 0


def _cmd_passes(args: argparse.Namespace) -> int:
    from pypto.passes import PassManager

    for name in PassManager.get_strategy().get_pass_names():
        print(name)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``pypto`` command."""
    parser = argparse.ArgumentParser(prog="pypto", description="The PyPTO tile-language compiler.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compile", help="run the pipeline on a DSL file and dump the IR after each pass")
    p.add_argument("file", help="a DSL source file holding one @pl.program")
    p.add_argument("-o", "--output", required=True, help="output folder for the dumped IR")
    p.add_argument(
        "--verify",
        choices=["none", "basic", "strict", "roundtrip"],
        default=None,
        help="boundary checks between passes (default: PYPTO_VERIFY_LEVEL or strict)",
    )
    p.set_defaults(run=_cmd_compile)

    p = sub.add_parser("parse", help="parse a DSL file and print its IR")
    p.add_argument("file", help="a DSL source file holding one @pl.program")
    p.add_argument("--concise", action="store_true", help="omit the types of intermediate values")
    p.set_defaults(run=_cmd_parse)

    p = sub.add_parser("passes", help="list the passes of the default pipeline")
    p.set_defaults(run=_cmd_passes)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pypto`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except PyptoError as err:
        text = err.format_error() if hasattr(err, "format_error") else f"error: {err}"
        print(text, file=sys.stderr)
        return 1
    except OSError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
