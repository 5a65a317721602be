"""WORK: characters work side by side on their plans; the only kind that produces artifacts."""

from __future__ import annotations

from .base import SceneKind


class Work(SceneKind):
    name = "WORK"
    allows = frozenset({"artifacts"})
    replans_on_news = True
    recalls_by_plan = True
    consults_library = True

    def choose(self, world, agents, roster):
        """Those who have been in the fewest scenes today work side by side."""
        from ..scenes import SceneSpec

        workers, fewest = self.fewest_scenes_today(world, roster)
        return SceneSpec(type=self.name, day=world.day, scene=world.scene + 1, participants=workers,
                         reason=f"{', '.join(workers)}: fewest scenes today ({fewest}); work side by side")

    def fewest_scenes_today(self, world, roster: list[str]) -> tuple[list[str], int]:
        from . import get_kind

        in_scenes = {a: 0 for a in roster}
        last_seen = {a: -1 for a in roster}
        for position, entry in enumerate(world.today):
            if get_kind(entry.type, strict=False).starts_day():
                continue
            for participant in entry.participants:
                if participant in in_scenes:
                    in_scenes[participant] += 1
                    last_seen[participant] = position
        order = sorted(roster, key=lambda a: (in_scenes[a], last_seen[a], roster.index(a)))
        workers = order[: world.work_group_size]
        return workers, in_scenes[workers[0]]

    def forced(self, world, agents, participants):
        return participants or self.fewest_scenes_today(world, sorted(agents))[0]

    def write_back(self, scene) -> None:
        from ..library import remember_readings

        remember_readings(scene)

    def play_offline(self, player) -> dict:
        from ..backends.offline import work

        return work.play(player)


KIND = Work()
