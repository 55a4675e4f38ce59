from league.match import _split, wilson_interval


def test_wilson_interval_hand_computed():
    lo, hi = wilson_interval(8, 10)  # p=0.8, z=1.96: (0.4902, 0.9433)
    assert abs(lo - 0.4902) < 1e-3 and abs(hi - 0.9433) < 1e-3
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(50, 100)
    assert abs((lo + hi) / 2 - 0.5) < 1e-9


def test_split_shares():
    assert _split(10, 3) == [4, 3, 3] and sum(_split(500, 2)) == 500


def test_a_battle_created_after_its_player_retired_is_lost_not_vanished():
    """The simulator's accounting (started = finished + timed out + lost + in flight): a
    battle whose room opens after league.match retired its player (a challenge under way
    when the server crashed or the run stopped) is lost, as those in flight then are."""
    import asyncio

    from league.players.random_player import RandomPlayer

    async def main():
        p = RandomPlayer(battle_format="gen9vgc2023regc", max_concurrent_battles=4, start_listening=False, log_level=60)

        async def nowhere(*a, **k):  # poke-env answers a new VGC room's team-sheet prompt
            return None

        p.ps_client.send_message = nowhere
        await p._create_battle([">battle", "gen9vgc2023regc", "1"])
        assert (p.n_started, p.n_in_flight, p.lost_at_retire) == (1, 1, 0)
        p.retire()
        assert p.lost_at_retire == 1
        await p._create_battle([">battle", "gen9vgc2023regc", "2"])  # after the retirement
        assert (p.n_started, p.lost_at_retire) == (2, 2)
        p._battles["battle-gen9vgc2023regc-1"].won_by(p.username)  # a late finish is a result, not a loss
        p._battle_finished_callback(p._battles["battle-gen9vgc2023regc-1"])
        assert (p.n_finished, p.lost_at_retire) == (1, 1)

    asyncio.run(main())
