"""The pass framework: what every pass is built on, and what runs around it.

The passes themselves are in :mod:`pypto.passes` (one module per pass), which also re-exports
the public names of this package; this package imports nothing from it.

* :mod:`.base`: :class:`~pypto.transform.base.Pass`, ``FunctionPass``, ``ProgramPass``, ``SAME``;
* :mod:`.rewrite`: ``RewritePass`` and ``Rewrite``, the statement-rewriting framework passes are
  written on; :mod:`.util`: its small helpers (canonical blocks, copy-on-write rebuilds, prechecks);
* :mod:`.context`: ``PassContext`` (instruments, verification level, platform) and ``apply_pass``;
* :mod:`.errors`: ``PassError``, ``PassOrderError``, ``PluginError``;
* :mod:`.properties`, :mod:`.verifier`, :mod:`.report`: IR properties, property verification and
  the per-pass report under the established API's names;
* :mod:`.plugins`: the registry of third-party passes (the ``pypto.passes`` entry-point group);
* :mod:`.memref_util`: helpers shared by the memory-planning passes.
"""
