"""Count quoted op-name string literals ("tile.x", "tensor.x", "system.x") in shipped modules.

The op definitions (pypto/ir/ops) are where op names belong; every literal elsewhere is a fact
about an op kept outside its registry entry. Prints one line per module with literals, then the
total, so a change to where op facts live can be measured before and after the same way::

    python scripts/count_op_names.py [--summary]
"""

from __future__ import annotations

import argparse
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ("pypto", "passes", "codegen", "languages")
EXCLUDED = ROOT / "pypto" / "ir" / "ops"
OP_NAME = re.compile(r"""^[rbuf]*(['"])(tile|tensor|system)\.[A-Za-z_0-9]+\1$""")


def count(path: Path) -> int:
    """Number of string tokens in ``path`` that are exactly one quoted op name."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return sum(1 for t in tokens if t.type == tokenize.STRING and OP_NAME.match(t.string))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summary", action="store_true", help="print only the totals")
    args = parser.parse_args()
    counts: dict[str, int] = {}
    for top in SHIPPED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if EXCLUDED in path.parents:
                continue
            n = count(path)
            if n:
                counts[str(path.relative_to(ROOT))] = n
    if not args.summary:
        for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"{n:5d}  {name}")
    print(f"{sum(counts.values()):5d}  literals in {len(counts)} modules")


if __name__ == "__main__":
    main()
