"""Serial placement (``run.placement=serial``): the process placement's components as
threads of this one process. The same loop (league/coordinator/loop.py), the same
Supervisor, learner process class and simulator function, on the same sockets and
buffers (league/transport/wiring.py ``connect(cfg, threads=True)``): only where the
components run differs. For debugging and profiling (a debugger or profiler in one
process sees every component) and fast tests (no process start-up). A component that
fails ends its thread and is started again as a process would be; one that hangs cannot
be killed from outside: the run stops, saying so."""

from __future__ import annotations

from league.coordinator.coordinator import RestartLearner
from league.coordinator.supervisor import Supervisor


class SerialPlacement(Supervisor):
    """Supervisor over threads (its wiring's context makes them): restarts only of the dead."""

    def _restart_sim(self, k: int, why: str, eval_history: dict) -> None:
        if self.sims[k].is_alive():
            raise _unkillable("simulator", why)
        super()._restart_sim(k, why, eval_history)

    def _restart_learner(self, a: RestartLearner) -> None:
        if self.learner.is_alive():
            raise _unkillable("main learner", a.why)
        super()._restart_learner(a)


def _unkillable(what: str, why: str) -> RuntimeError:
    return RuntimeError(
        f"the {what} {why}, and in run.placement=serial it is a thread of this process, which cannot be "
        "killed: the run stops (run.placement=processes restarts a hung component)"
    )
