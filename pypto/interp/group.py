"""The kernels a Group function launches run as communicating processes (docs/ops.md#cross-core-pipes).

Each launched AIC kernel, and each lane of a launched AIV kernel, is a process on its own thread;
exactly one runs at a time, so the interpreter's state needs no locks. A process runs until it
finishes or blocks on a pipe (a pop from an empty FIFO, a push into a full one); the scheduler then
resumes the next process that can go on, in launch order. When every unfinished process is
blocked, the run stops with a deadlock error naming each waiting kernel, its pipe and the peer.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from .errors import OpError

_LAUNCH_FIELDS = ("block_idx", "block_num", "subblock_idx", "subblock_num")


class _Abort(BaseException):
    """Unwinds a blocked process when its group stops (not an error of the program)."""


class Process:
    """One kernel instance of a group: its thread, launch indices, and what it waits for."""

    def __init__(self, name: str, kind: str, run: Callable[[], list[Any]], launch: tuple[int, ...]) -> None:
        self.name = name
        self.kind = kind  # "AIC" or "AIV"
        self.run = run
        self.launch = launch
        self.go = threading.Event()
        self.done = False
        self.result: list[Any] = []
        self.error: BaseException | None = None
        self.ready: Callable[[], bool] | None = None  # set while blocked
        self.waiting = ""
        self.peer = ""  # the kind of kernel that could unblock it
        self.thread: threading.Thread | None = None


class GroupRun:
    """Schedules the processes of one Group invocation over the shared ``RunState``."""

    def __init__(self, group: str, state: Any) -> None:
        self.group = group
        self.state = state
        self.processes: list[Process] = []
        self.current: Process | None = None
        self.back = threading.Event()
        self.aborted = False

    def spawn(self, name: str, kind: str, run: Callable[[], list[Any]]) -> Process:
        """Queue kernel ``name`` of ``kind`` (``run`` executes it) with the current launch indices."""
        launch = tuple(getattr(self.state, f) for f in _LAUNCH_FIELDS)
        lane = f" (lane {launch[2]})" if launch[3] > 1 else ""
        proc = Process(f"'{name}'{lane}", kind, run, launch)
        self.processes.append(proc)
        return proc

    def block(self, ready: Callable[[], bool], waiting: str, peer: str) -> None:
        """Called by the running process: wait until ``ready()`` (a ``peer`` kernel, "AIC" or "AIV",
        can make it so), letting the others run meanwhile."""
        proc = self.current
        if proc is None:
            raise OpError(f"{waiting}, and no other kernel runs to unblock it")
        while not ready():
            proc.ready, proc.waiting, proc.peer = ready, waiting, peer
            self.back.set()
            proc.go.wait()
            proc.go.clear()
            if self.aborted:
                raise _Abort
        proc.ready, proc.waiting = None, ""

    def run_all(self) -> None:
        """Run every spawned process to its end; re-raise the first error; detect deadlock."""
        try:
            self.run_until(lambda: False)
        finally:
            self._stop()

    def run_until(self, done: Callable[[], bool]) -> None:
        """Run the spawned processes until ``done()`` or until all have finished."""
        while not done():
            pending = [p for p in self.processes if not p.done]
            if not pending:
                return
            proc = next((p for p in pending if p.ready is None or p.ready()), None)
            if proc is None:
                raise OpError(self._deadlock(pending))
            self._resume(proc)
            if proc.error is not None:
                raise proc.error

    def _resume(self, proc: Process) -> None:
        for f, v in zip(_LAUNCH_FIELDS, proc.launch):
            setattr(self.state, f, v)
        self.current = proc
        self.back.clear()
        if proc.thread is None:
            proc.thread = threading.Thread(target=self._body, args=(proc,), daemon=True, name=proc.name)
            proc.thread.start()
        else:
            proc.go.set()
        self.back.wait()
        self.current = None

    def _body(self, proc: Process) -> None:
        try:
            proc.result = proc.run()
        except _Abort:
            return
        except BaseException as err:  # re-raised by run_all in the group's thread
            proc.error = err
        proc.done = True
        self.back.set()

    def _stop(self) -> None:
        """Unwind the processes still blocked (after an error or a deadlock)."""
        self.aborted = True
        for p in self.processes:
            if p.thread is not None and not p.done:
                p.go.set()
                p.thread.join()

    def _deadlock(self, pending: list[Process]) -> str:
        def peers(p: Process) -> str:
            found = [f"{q.name} {'finished' if q.done else 'blocked'}" for q in self.processes if q.kind == p.peer]
            return ", ".join(found) or f"no {p.peer} kernel"

        lines = "; ".join(f"{p.name} waits to {p.waiting} (peer {peers(p)})" for p in pending)
        return f"deadlock in Group '{self.group}': {lines}"
