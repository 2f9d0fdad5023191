"""Code generators (installed as ``pypto.codegen``): PTO-ISA MLIR, CCE C++ and PTO2 orchestration C++.

Each printer is a one-to-one translation of the final dialect; analysis happens in passes.
"""
