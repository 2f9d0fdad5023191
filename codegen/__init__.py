"""Code generators (installed as ``pypto.codegen``): PTO-ISA MLIR, CCE C++ and PTO2 orchestration C++.

Each printer is a one-to-one translation of the final dialect; analysis happens in passes.

* ``base``: the :class:`~pypto.codegen.base.Emitter` base and its per-emitter ``Rules`` dispatcher;
  ``doc``: the indented document emitters write; ``errors``: ``CodegenError`` ("no rule for X in T").
* ``target``: the targets (dialect, function kinds, op table); ``pto_ops``, ``cce_ops``,
  ``orchestration_ops``: each target's op table (op name -> mnemonic and spelling rule).
* ``orchestration``: PTO2 orchestration C++ (``generate_orchestration``); ``kernel_config``: the
  artifact tree's ``kernel_config.py`` (``generate_kernel_config``).
* ``coverage``: the ops and node kinds each target still lacks (``python -m pypto.codegen.coverage``).
"""
