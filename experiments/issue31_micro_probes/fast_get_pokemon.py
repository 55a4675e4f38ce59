"""poke-env's message handling on the recorded battles (msgbench) with and without a
fast path in ``get_pokemon`` for an identifier already in a team and not in doubt
(Illusion). Not adopted (experiments/issue31_micro_probes).

    python experiments/issue31_micro_probes/fast_get_pokemon.py orig|get
"""

import json
import sys

sys.path.insert(0, "experiments/issue31_accel_pokeenv")  # run from the repository root
import msgbench
from poke_env.battle import Status
from poke_env.battle.abstract_battle import AbstractBattle
from poke_env.battle.double_battle import DoubleBattle

orig_get = AbstractBattle.get_pokemon
FNT = Status.FNT
cnt = {"fast": 0, "slow": 0}


def fast_get(self, identifier, force_self_team=False, details="", request=None):
    if len(identifier) > 3 and identifier[3] != " ":
        role = identifier[:2]
        ident = role + identifier[3:]
        if role == self._player_role:
            mon = self._team.get(ident)
            if mon is not None:
                b = self._active_pokemon.get(identifier[:3])
                if b is None or not b._active or b._status is FNT or b is mon:
                    cnt["fast"] += 1
                    return mon
        else:
            team = self._team
            if ident not in team:
                mon = self._opponent_team.get(ident)
                if mon is not None:
                    cnt["fast"] += 1
                    return mon
    cnt["slow"] += 1
    return orig_get(self, identifier, force_self_team, details, request)


if "get" in sys.argv[1]:
    DoubleBattle.get_pokemon = fast_get
print(sys.argv[1], json.dumps(msgbench.main()), cnt)
