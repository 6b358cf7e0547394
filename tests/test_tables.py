"""Match-action tables: every match kind, priorities, defaults, const entries, action profiles and selectors."""
from collections import Counter as Tally

import pytest

from emulator.errors import RuntimeApiError
from emulator.p4.program import (
    ActionInfo,
    ActionProfileInfo,
    ActionRefInfo,
    ConstEntryInfo,
    MatchFieldInfo,
    ParamInfo,
    TableInfo,
)
from emulator.target import hashing
from emulator.target.externs import DirectCounter, DirectMeter
from emulator.target.tables import ActionProfile, Table, build_tables

ACTIONS = {
    "NoAction": ActionInfo(name="NoAction"),
    "ig.fwd": ActionInfo(name="ig.fwd", params=[ParamInfo(name="port", bitwidth=9, id=1)]),
    "ig.drop": ActionInfo(name="ig.drop"),
    "ig.set2": ActionInfo(name="ig.set2", params=[ParamInfo(name="a", bitwidth=8, id=1),
                                                 ParamInfo(name="b", bitwidth=16, id=2)]),
}


def mk(keys, name="ig.t", size=1024, default="NoAction", **kw) -> TableInfo:
    fields = [MatchFieldInfo(name=n, match_kind=k, bitwidth=w, id=i + 1) for i, (n, k, w) in enumerate(keys)]
    refs = [ActionRefInfo(name="ig.fwd"), ActionRefInfo(name="ig.drop"), ActionRefInfo(name="ig.set2"),
            ActionRefInfo(name="NoAction", scope="DEFAULT_ONLY")]
    return TableInfo(name=name, match_fields=fields, actions=refs, default_action=default, size=size, **kw)


def table(keys, **kw) -> Table:
    return Table(mk(keys, **kw), ACTIONS)


def test_exact_hit_miss_and_default():
    t = table([("hdr.eth.dst", "exact", 48), ("meta.vrf", "exact", 8)])
    h = t.add_entry([0xAABBCCDDEEFF, 1], "ig.fwd", [3])
    assert t.lookup([0xAABBCCDDEEFF, 1]) == ("ig.fwd", (3,), t.entry(h))
    assert t.lookup([0xAABBCCDDEEFF, 2]) == ("NoAction", (), None)
    t.set_default("drop")  # alias accepted
    assert t.lookup([0, 0]) == ("ig.drop", (), None)
    t.modify_entry(h, "ig.set2", [1, 2])
    assert t.lookup([0xAABBCCDDEEFF, 1])[:2] == ("ig.set2", (1, 2))
    t.delete_entry(h)
    assert t.lookup([0xAABBCCDDEEFF, 1])[2] is None
    assert len(t) == 0


def test_exact_errors_name_table_field_and_key():
    t = table([("hdr.ipv4.ttl", "exact", 8)])
    with pytest.raises(RuntimeApiError, match="value 300 does not fit match field 'hdr.ipv4.ttl' of 8 bits"):
        t.add_entry([300], "ig.drop")
    t.add_entry([7], "ig.drop")
    with pytest.raises(RuntimeApiError, match=r"duplicate entry in table 'ig.t' for key \{hdr.ipv4.ttl=0x7\}"):
        t.add_entry([7], "ig.fwd", [1])
    with pytest.raises(RuntimeApiError, match="action 'bogus' is not an action of table 'ig.t'"):
        t.add_entry([8], "bogus")
    with pytest.raises(RuntimeApiError, match="takes 1 parameters, got 0"):
        t.add_entry([8], "ig.fwd")
    with pytest.raises(RuntimeApiError, match="value 512 does not fit parameter 'port' of action 'ig.fwd'"):
        t.add_entry([8], "ig.fwd", [512])
    with pytest.raises(RuntimeApiError, match="@defaultonly"):
        t.add_entry([8], "NoAction")
    with pytest.raises(RuntimeApiError, match="no entry with handle 99"):
        t.delete_entry(99)


def test_size_limit():
    t = table([("k", "exact", 8)], size=2)
    t.add_entry([1], "ig.drop")
    t.add_entry([2], "ig.drop")
    with pytest.raises(RuntimeApiError, match="table 'ig.t' is full"):
        t.add_entry([3], "ig.drop")


def test_lpm_longest_prefix_wins():
    t = table([("hdr.ipv4.dst", "lpm", 32)])
    t.add_entry([(0x0A000000, 8)], "ig.fwd", [1])
    t.add_entry([(0x0A010000, 16)], "ig.fwd", [2])
    t.add_entry([(0x0A010203, 32)], "ig.fwd", [3])
    t.add_entry([(0, 0)], "ig.fwd", [4])
    assert t.lookup([0x0A010203])[1] == (3,)
    assert t.lookup([0x0A010204])[1] == (2,)
    assert t.lookup([0x0A020304])[1] == (1,)
    assert t.lookup([0x0B000000])[1] == (4,)
    # host bits beyond the prefix are ignored (and make a duplicate)
    with pytest.raises(RuntimeApiError, match="duplicate"):
        t.add_entry([(0x0A0000FF, 8)], "ig.drop")
    with pytest.raises(RuntimeApiError, match="prefix length 33 is out of range"):
        t.add_entry([(0, 33)], "ig.drop")
    t.delete_entry(t.find([(0x0A010000, 16)]))
    assert t.lookup([0x0A010204])[1] == (1,)


def test_lpm_with_exact_keys():
    t = table([("meta.vrf", "exact", 8), ("hdr.ipv4.dst", "lpm", 32)])
    t.add_entry([1, (0x0A000000, 8)], "ig.fwd", [1])
    t.add_entry([2, (0x0A000000, 16)], "ig.fwd", [2])
    assert t.lookup([1, 0x0A000001])[1] == (1,)
    assert t.lookup([2, 0x0A000001])[1] == (2,)
    assert t.lookup([2, 0x0A010001])[2] is None
    assert t.lookup([3, 0x0A000001])[2] is None


def test_at_most_one_lpm_key():
    with pytest.raises(RuntimeApiError, match="at most one"):
        table([("a", "lpm", 8), ("b", "lpm", 8)])


def test_ternary_highest_priority_wins_and_priority_required():
    t = table([("hdr.eth.type", "ternary", 16)])
    with pytest.raises(RuntimeApiError, match="need a priority"):
        t.add_entry([(0x0800, 0xFFFF)], "ig.drop")
    t.add_entry([(0x0800, 0xFF00)], "ig.fwd", [1], priority=10)
    t.add_entry([(0x0800, 0xFFFF)], "ig.fwd", [2], priority=20)
    t.add_entry([(0, 0)], "ig.fwd", [3], priority=1)
    assert t.lookup([0x0800])[1] == (2,)
    assert t.lookup([0x0806])[1] == (1,)
    assert t.lookup([0x86DD])[1] == (3,)
    # same match with another priority is another entry (P4Runtime); same match and priority a duplicate
    t.add_entry([(0x0800, 0xFFFF)], "ig.fwd", [4], priority=30)
    assert t.lookup([0x0800])[1] == (4,)
    with pytest.raises(RuntimeApiError, match="duplicate"):
        t.add_entry([(0x0800, 0xFFFF)], "ig.drop", priority=30)
    # equal priorities: the earlier entry wins
    t2 = table([("k", "ternary", 8)])
    t2.add_entry([(1, 1)], "ig.fwd", [1], priority=5)
    t2.add_entry([(0, 0)], "ig.fwd", [2], priority=5)
    assert t2.lookup([1])[1] == (1,)


def test_range_and_optional():
    t = table([("l4.dport", "range", 16), ("meta.flag", "optional", 1)])
    t.add_entry([(1000, 2000), None], "ig.fwd", [1], priority=1)
    t.add_entry([(1500, 1600), 1], "ig.fwd", [2], priority=2)
    assert t.lookup([1550, 1])[1] == (2,)
    assert t.lookup([1550, 0])[1] == (1,)
    assert t.lookup([999, 1])[2] is None
    assert t.lookup([2000, 0])[1] == (1,)
    with pytest.raises(RuntimeApiError, match="empty range"):
        t.add_entry([(5, 4), None], "ig.drop", priority=3)


def test_mixed_ternary_and_lpm_use_priorities():
    t = table([("dst", "lpm", 32), ("proto", "ternary", 8)])
    t.add_entry([(0x0A000000, 8), (6, 0xFF)], "ig.fwd", [1], priority=1)
    t.add_entry([(0x0A010000, 16), (0, 0)], "ig.fwd", [2], priority=2)
    assert t.lookup([0x0A010101, 6])[1] == (2,)
    assert t.lookup([0x0A020101, 6])[1] == (1,)
    assert t.lookup([0x0A020101, 17])[2] is None


def test_const_entries_and_const_default():
    info = mk([("k", "ternary", 8)], default="ig.drop", const_default_action=True, entries_const=True,
              const_entries=[ConstEntryInfo(keys=[("ternary", 1, 0xFF)], action="ig.fwd", args=[1]),
                             ConstEntryInfo(keys=[None], action="ig.fwd", args=[2])])
    t = Table(info, ACTIONS)
    assert t.lookup([1])[1] == (1,)  # the first listed entry wins
    assert t.lookup([9])[1] == (2,)
    with pytest.raises(RuntimeApiError, match="const entries"):
        t.add_entry([(3, 0xFF)], "ig.drop", priority=9)
    with pytest.raises(RuntimeApiError, match="const entries"):
        t.clear()
    with pytest.raises(RuntimeApiError, match="default action of table 'ig.t' is const"):
        t.set_default("ig.fwd", [1])
    assert all(e.const for e in t.entries())


def test_non_const_initial_entries_are_mutable():
    info = mk([("k", "exact", 8)], const_entries=[ConstEntryInfo(keys=[1], action="ig.drop", args=[])])
    t = Table(info, ACTIONS)
    assert t.lookup([1])[0] == "ig.drop"
    t.add_entry([2], "ig.drop")
    t.clear()
    assert len(t) == 0


def test_const_entry_among_non_const_entries_stays():
    # `entries = { const 1 : drop(); 2 : fwd(3); }`: the const entry can be neither changed nor deleted
    info = mk([("k", "exact", 8)], const_entries=[ConstEntryInfo(keys=[1], action="ig.drop", args=[], const=True),
                                                 ConstEntryInfo(keys=[2], action="ig.fwd", args=[3])])
    t = Table(info, ACTIONS)
    pinned = t.find([1])
    with pytest.raises(RuntimeApiError, match="entry .* of table 'ig.t' is const"):
        t.delete_entry(pinned)
    with pytest.raises(RuntimeApiError, match="is const"):
        t.modify_entry(pinned, "ig.fwd", [1])
    t.modify_entry(t.find([2]), "ig.drop")
    t.add_entry([3], "ig.drop")
    t.clear()
    assert [e.match for e in t.entries()] == [t.entry(pinned).match] and t.lookup([1])[0] == "ig.drop"


def test_keyless_table_always_runs_default():
    t = table([], default="ig.drop")
    assert t.lookup([]) == ("ig.drop", (), None)


def test_direct_counter_and_meter_on_hit():
    dc, dm = DirectCounter("packets_and_bytes", "ig.dc"), DirectMeter("bytes", "ig.dm")
    t = Table(mk([("k", "exact", 8)], direct_counter="ig.dc", direct_meter="ig.dm"), ACTIONS,
              direct_counter=dc, direct_meter=dm)
    h = t.add_entry([1], "ig.drop")
    t.apply([1], 100, 0)
    t.apply([1], 50, 0)
    t.apply([2], 50, 0)  # miss: nothing counted
    assert dc.read(t.entry(h)) == (2, 150)
    dm.set_rates(t.entry(h), [(0, 100), (0, 250)])
    assert t.apply([1], 100, 1)[0] == "ig.drop" and dm.read() == 0
    t.apply([1], 100, 1)
    assert dm.read() == 1  # yellow
    t.apply([2], 1, 1)
    assert dm.read() is None  # a miss runs no meter: read() leaves its destination unchanged (BMv2)


def selector_setup(n_members=4):
    prof_info = ActionProfileInfo(name="ig.sel", table_names=["ig.ecmp"], with_selector=True, size=64,
                                  algorithm="crc16", selector_width=14)
    info = TableInfo(name="ig.ecmp", match_fields=[MatchFieldInfo(name="meta.grp", match_kind="exact",
                                                                  bitwidth=8, id=1)],
                     selector_fields=[MatchFieldInfo(name="hdr.ipv4.src", match_kind="selector", bitwidth=32, id=2),
                                      MatchFieldInfo(name="hdr.udp.sport", match_kind="selector", bitwidth=16, id=3)],
                     actions=[ActionRefInfo(name="ig.fwd"), ActionRefInfo(name="NoAction")],
                     default_action="NoAction", implementation="ig.sel")
    tables, profiles = build_tables([info], ACTIONS.values(), [prof_info])
    t, p = tables["ig.ecmp"], profiles["ig.sel"]
    members = [p.add_member("fwd", [port]) for port in range(1, n_members + 1)]
    return t, p, members


def test_selector_spreads_keys_over_all_members_like_bmv2():
    t, p, members = selector_setup(4)
    g = p.create_group(members=members)
    t.add_entry([7], group=g)
    seen = Tally()
    for i in range(2000):
        src, sport = 0x0A000000 + i, 1024 + (i * 7919) % 60000
        action, args, entry = t.lookup([7, src, sport])
        assert action == "ig.fwd" and entry is not None
        # BMv2: member = sorted members[crc16(packed selector keys) % n]
        expect = 1 + hashing.compute("crc16", [(src, 32), (sport, 16)]) % 4
        assert args == (expect,)
        seen[args[0]] += 1
    assert set(seen) == {1, 2, 3, 4}
    assert min(seen.values()) > 2000 / 4 * 0.8
    # the same flow always picks the same member
    assert t.lookup([7, 1, 2]) == t.lookup([7, 1, 2])


def test_selector_weights_groups_and_member_lifecycle():
    t, p, (m1, m2, m3, m4) = selector_setup(4)
    g = p.create_group()
    p.add_member_to_group(g, m1, weight=3)
    p.add_member_to_group(g, m2)
    h = t.add_entry([1], group=g)
    seen = Tally(t.lookup([1, i, i * 31])[1][0] for i in range(4000))
    assert seen[1] > 2 * seen[2] > 0
    with pytest.raises(RuntimeApiError, match="is in group"):
        p.delete_member(m1)
    with pytest.raises(RuntimeApiError, match="used by table entries"):
        p.delete_group(g)
    p.remove_member_from_group(g, m1)
    p.remove_member_from_group(g, m2)
    assert t.lookup([1, 5, 6]) == ("NoAction", (), None)  # empty group -> miss
    with pytest.raises(RuntimeApiError, match="is empty"):  # but no new entry may point at it (BMv2: EMPTY_GRP)
        t.add_entry([5], group=g)
    t.add_entry([2], member=m3)
    assert t.lookup([2, 0, 0])[:2] == ("ig.fwd", (3,))
    p.modify_member(m3, "ig.fwd", [9])
    t.delete_entry(h)
    p.delete_group(g)
    t.modify_entry(t.find([2]), member=m4)
    assert t.lookup([2, 0, 0])[:2] == ("ig.fwd", (4,))
    with pytest.raises(RuntimeApiError, match="exactly one member id or group id"):
        t.add_entry([3], "ig.fwd", [1])
    with pytest.raises(RuntimeApiError, match="unknown member 99"):
        t.add_entry([3], member=99)
    with pytest.raises(RuntimeApiError, match="not an action of the tables"):
        p.add_member("ig.set2", [1, 2])


def test_action_profile_without_selector_has_no_groups():
    p = ActionProfile(ActionProfileInfo(name="ig.ap", with_selector=False, size=1), ACTIONS)
    p.add_member("ig.drop")
    with pytest.raises(RuntimeApiError, match="is full"):
        p.add_member("ig.drop")
    with pytest.raises(RuntimeApiError, match="has no selector"):
        p.create_group()


def test_lookup_speed_structures_stay_consistent_under_churn():
    t = table([("dst", "lpm", 16)])
    handles = {}
    for plen in range(0, 17):
        handles[plen] = t.add_entry([(0xFFFF, plen)], "ig.fwd", [plen])
    for plen in range(16, -1, -1):
        assert t.lookup([0xFFFF])[1] == (plen,)
        t.delete_entry(handles[plen])
    assert t.lookup([0xFFFF])[2] is None


def test_selector_keys_interleaved_in_source_are_reordered():
    class K:
        def __init__(self, kind):
            self.match_kind = kind

    class Decl:
        class key:  # noqa: N801 - mimics the AST's KeyProperty
            elements = [K("selector"), K("exact"), K("selector")]

    prof = ActionProfileInfo(name="ig.sel", table_names=["ig.t"], with_selector=True, algorithm="crc32")
    info = TableInfo(name="ig.t", match_fields=[MatchFieldInfo(name="g", match_kind="exact", bitwidth=8, id=1)],
                     selector_fields=[MatchFieldInfo(name="a", match_kind="selector", bitwidth=16, id=2),
                                      MatchFieldInfo(name="b", match_kind="selector", bitwidth=16, id=3)],
                     actions=[ActionRefInfo(name="ig.fwd")], implementation="ig.sel", decl=Decl())
    tables, profiles = build_tables([info], ACTIONS.values(), [prof])
    t, p = tables["ig.t"], profiles["ig.sel"]
    g = p.create_group(members=[p.add_member("ig.fwd", [i]) for i in range(5)])
    t.add_entry([9], group=g)
    for a in range(50):
        b = a * 977 % 65536
        expect = hashing.compute("crc32", [(a, 16), (b, 16)]) % 5
        assert t.lookup((a, 9, b))[1] == (expect,)  # source order: a, g, b
