"""Ray placement (``run.placement=ray``), by role: wire.py (the shards' side of the
data paths), actors.py (learner and shard actors), placement.py (the coordinator's side),
driver.py (joining Ray, the coordinator actor, the run; its docstring tells the whole)."""

from league.coordinator.ray_placement.driver import check_fits, role_requests, run_ray, total_request

__all__ = ["check_fits", "role_requests", "run_ray", "total_request"]
