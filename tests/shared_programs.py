"""Program texts that several test modules read (import from here rather than copying)."""

# An Inline function whose pl.unroll bound is a parameter: only after InlineFunctions splices the
# call does the bound become known, and here it is a runtime value, so UnrollLoops fails at line 9
# (the text starts with a newline) / line 8 once stripped.
INLINE_UNROLL = """
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def rep(self, k: pl.Scalar[pl.INDEX], acc: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i in pl.unroll(k):
            acc = acc + i
        return acc

    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        r: pl.Scalar[pl.INDEX] = self.rep(n, n)
        return r
"""
