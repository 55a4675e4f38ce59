"""poke-env's message handling on the recorded battles (msgbench) with and without a
fast path in ``_update_team_from_request``: an own Pokemon's request entry equal to the
one it last applied is not applied again. Not adopted (experiments/issue31_micro_probes).

    python experiments/issue31_micro_probes/fast_request.py orig|fast
"""

import json
import sys

sys.path.insert(0, "experiments/issue31_accel_pokeenv")  # run from the repository root
import msgbench
from poke_env.battle.abstract_battle import AbstractBattle

orig = AbstractBattle._update_team_from_request
stats = {"skip": 0, "full": 0}


def fast(self, side, strict_battle_tracking=False):
    falsely_active = []
    truly_active = []
    team = self._team
    for pokemon in side["pokemon"]:
        ident = pokemon["ident"]
        if ident not in team:
            self.get_pokemon(ident, force_self_team=True, details=pokemon["details"], request=pokemon)
            team = self._team
        mon = team[ident]
        if pokemon["active"] and not mon._active:
            truly_active.append(mon)
        elif not pokemon["active"] and mon._active:
            falsely_active.append(mon)
    for m in falsely_active:
        m.was_illusioned(self.fields)
    for m in truly_active:
        m.switch_in()
    team = self._team
    for pokemon in side["pokemon"]:
        mon = team.get(pokemon["ident"])
        if mon is not None:
            if mon._last_request == pokemon:
                stats["skip"] += 1
                continue
            stats["full"] += 1
            mon.update_from_request(pokemon)
        else:
            self.get_pokemon(pokemon["ident"], force_self_team=True, details=pokemon["details"], request=pokemon)


if sys.argv[1] == "fast":
    AbstractBattle._update_team_from_request = fast
print(sys.argv[1], json.dumps(msgbench.main()), stats)
