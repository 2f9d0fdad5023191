"""The passes of the compiler (installed as ``pypto.passes``).

One module per pass, the pass base and dispatch helpers, the pass manager and the plugin registry
live here; each pass is exposed as a snake_case factory (``passes.convert_to_ssa()``).
"""
