"""WORK: characters work side by side on their plans; the only kind that produces artifacts."""

from __future__ import annotations

from .base import SceneKind


class Work(SceneKind):
    name = "WORK"
    acting = True
    allows = frozenset({"artifacts"})
    replans_on_news = True
    recalls_by_plan = True
    consults_library = True

    def choose(self, world, agents, roster):
        """Those who waited longest to act work side by side (see ``fairness``)."""
        from ..scenes import SceneSpec
        from .fairness import acted_today

        workers = self.next_workers(world, agents, roster)
        fewest = acted_today(world, roster)[workers[0]]
        return SceneSpec(type=self.name, day=world.day, scene=world.scene + 1, participants=workers,
                         reason=f"{', '.join(workers)}: waited longest to act ({fewest} scene(s) today); work side by side")

    @staticmethod
    def next_workers(world, agents, roster: list[str]) -> list[str]:
        from .fairness import waited_longest

        return waited_longest(world, agents, roster)[: world.work_group_size]

    def forced(self, world, agents, participants):
        return participants or self.next_workers(world, agents, sorted(agents))

    def write_back(self, scene) -> None:
        from ..library import remember_readings

        remember_readings(scene)

    def play_offline(self, player) -> dict:
        from ..backends.offline import work

        return work.play(player)


KIND = Work()
