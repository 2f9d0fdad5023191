"""The dialects of the compiler (installed as ``pypto.languages``).

One small module per dialect (surface, ssa, outlined, tiled, split_core, memref, runtime), each
declared as a delta on its parent, plus the invariant checkers run when a program enters a dialect.
The dialects arrive with the pass-framework work; this package is their home.
"""
