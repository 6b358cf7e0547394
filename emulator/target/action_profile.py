"""Action profiles and action selectors: members (an action and its arguments), groups of weighted members, and
BMv2's choice of a group's member (the selector's hash of the selector keys, modulo the expanded member list)."""
from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence

from emulator.errors import RuntimeApiError
from emulator.p4.program import ActionInfo, ActionProfileInfo
from emulator.target import hashing


def resolve_action_name(name: str, names: Iterable[str]) -> str | None:
    """`name` itself or the one name of `names` it is a dotted suffix of; None when neither."""
    names = list(names)
    if name in names:
        return name
    matches = [n for n in names if n.endswith("." + name)]
    return matches[0] if len(matches) == 1 else None


class ActionProfile:
    """action_profile / action_selector instance: members (action + args) and, for selectors, groups."""

    def __init__(self, info: ActionProfileInfo, actions: dict[str, ActionInfo] | None = None,
                 hashes: hashing.Hashes | None = None):
        self.info = info
        self.name = info.name
        self.with_selector = info.with_selector
        self.actions = actions or {}
        self.members: dict[int, tuple[str, tuple]] = {}
        self.groups: dict[int, dict[int, int]] = {}  # group id -> {member id: weight}
        self._expanded: dict[int, tuple] = {}  # group id -> member results, id order, repeated by weight
        self._refs: dict[tuple[str, int], int] = {}  # ("member"|"group", id) -> number of table entries using it
        # the switch's own algorithms: a selector on crc32_custom follows that switch's parameters
        hashes = hashes or hashing.DEFAULT
        self._hash = hashes.late_bound(info.algorithm or "crc16") if info.with_selector else None
        self._next_member = 0
        self._next_group = 0
        self.valid_actions: set[str] | None = None  # union of the actions of the tables using this profile

    # ---- members
    def add_member(self, action: str, args: Iterable[int] = (), member_id: int | None = None) -> int:
        if member_id is None:
            while self._next_member in self.members:
                self._next_member += 1
            member_id = self._next_member
        if member_id in self.members:
            raise RuntimeApiError(f"member {member_id} already exists in action profile '{self.name}'")
        if self.info.size and len(self.members) >= self.info.size:
            raise RuntimeApiError(f"action profile '{self.name}' is full ({self.info.size} members)")
        self.members[member_id] = self._check_action(action, args)
        return member_id

    def modify_member(self, member_id: int, action: str, args: Iterable[int] = ()) -> None:
        self._member(member_id)
        self.members[member_id] = self._check_action(action, args)
        for gid, mbrs in self.groups.items():
            if member_id in mbrs:
                self._expand(gid)

    def delete_member(self, member_id: int) -> None:
        self._member(member_id)
        if self._refs.get(("member", member_id)):
            raise RuntimeApiError(f"member {member_id} of action profile '{self.name}' is used by table entries")
        for gid, mbrs in self.groups.items():
            if member_id in mbrs:
                raise RuntimeApiError(f"member {member_id} of action profile '{self.name}' is in group {gid}")
        del self.members[member_id]

    def _member(self, member_id: int) -> tuple[str, tuple]:
        try:
            return self.members[member_id]
        except KeyError:
            raise RuntimeApiError(f"unknown member {member_id} in action profile '{self.name}'") from None

    def _check_action(self, action: str, args: Iterable[int]) -> tuple[str, tuple]:
        names = self.valid_actions if self.valid_actions is not None else self.actions.keys()
        full = resolve_action_name(action, names) if names else action
        if full is None:
            raise RuntimeApiError(f"action '{action}' is not an action of the tables of action profile '{self.name}'")
        return full, check_args(self.actions.get(full), full, args)

    # ---- groups
    def create_group(self, group_id: int | None = None, members: Iterable[int | tuple[int, int]] = ()) -> int:
        if not self.with_selector:
            raise RuntimeApiError(f"action profile '{self.name}' has no selector, so it has no groups")
        if group_id is None:
            while self._next_group in self.groups:
                self._next_group += 1
            group_id = self._next_group
        if group_id in self.groups:
            raise RuntimeApiError(f"group {group_id} already exists in action selector '{self.name}'")
        self.groups[group_id] = {}
        self._expand(group_id)
        for m in members:
            mid, weight = m if isinstance(m, tuple) else (m, 1)
            self.add_member_to_group(group_id, mid, weight)
        return group_id

    def _group(self, group_id: int) -> dict[int, int]:
        try:
            return self.groups[group_id]
        except KeyError:
            raise RuntimeApiError(f"unknown group {group_id} in action selector '{self.name}'") from None

    def add_member_to_group(self, group_id: int, member_id: int, weight: int = 1) -> None:
        grp = self._group(group_id)
        self._member(member_id)
        if weight < 1:
            raise RuntimeApiError(f"member weight must be at least 1, got {weight}")
        if member_id in grp:
            raise RuntimeApiError(f"member {member_id} is already in group {group_id} of '{self.name}'")
        if self.info.max_group_size and sum(grp.values()) + weight > self.info.max_group_size:
            raise RuntimeApiError(f"group {group_id} of '{self.name}' would exceed max_group_size "
                                  f"{self.info.max_group_size}")
        grp[member_id] = weight
        self._expand(group_id)

    def remove_member_from_group(self, group_id: int, member_id: int) -> None:
        grp = self._group(group_id)
        if member_id not in grp:
            raise RuntimeApiError(f"member {member_id} is not in group {group_id} of '{self.name}'")
        del grp[member_id]
        self._expand(group_id)

    def delete_group(self, group_id: int) -> None:
        self._group(group_id)
        if self._refs.get(("group", group_id)):
            raise RuntimeApiError(f"group {group_id} of action selector '{self.name}' is used by table entries")
        del self.groups[group_id]
        del self._expanded[group_id]

    def _expand(self, group_id: int) -> None:
        grp = self.groups[group_id]
        ids = sorted(grp)
        if sum(grp.values()) <= EXPAND_LIMIT:
            self._expanded[group_id] = tuple(m for mid in ids for m in [self.members[mid]] * grp[mid])
        else:  # a weight of 2^31 - 1 (P4Runtime takes any int32) would be a list of two billion results
            self._expanded[group_id] = Weighted([self.members[mid] for mid in ids], [grp[mid] for mid in ids])

    def select(self, group_id: int, selector_fields) -> tuple[str, tuple] | None:
        """The (action, args) of the member a packet with these (value, width) selector fields gets."""
        members = self._expanded.get(group_id)
        if not members:
            return None
        if len(members) == 1:
            return members[0]
        return members[self._hash(hashing.pack(selector_fields)) % len(members)]

    def select_packed(self, group_id: int, data: bytes) -> tuple[str, tuple] | None:
        """select() for selector fields already packed (Table precomputes a packer for its selector keys)."""
        members = self._expanded.get(group_id)
        if not members:
            return None
        if len(members) == 1:
            return members[0]
        return members[self._hash(data) % len(members)]

    def ref(self, kind: str, ident: int, delta: int) -> None:
        key = (kind, ident)
        self._refs[key] = self._refs.get(key, 0) + delta


def check_args(action: ActionInfo | None, name: str, args: Iterable[int]) -> tuple:
    args = tuple(args)
    if action is None:
        return args
    if len(args) != len(action.params):
        raise RuntimeApiError(f"action '{name}' takes {len(action.params)} parameters, got {len(args)}")
    for p, v in zip(action.params, args):
        if not isinstance(v, int) or v < 0 or v >> p.bitwidth:
            raise RuntimeApiError(f"value {v} does not fit parameter '{p.name}' of action '{name}' of {p.bitwidth} bits")
    return args


EXPAND_LIMIT = 4096  # total weight up to which a group's results are a plain tuple, one slot per unit of weight


class Weighted(Sequence):
    """A group's member results repeated by weight, as the tuple _expand makes for small groups (slot i is the
    member whose run of slots covers i), without materializing the slots."""

    def __init__(self, results: list, weights: list[int]):
        self.results = tuple(results)
        self.ends = tuple(itertools.accumulate(weights))  # one past each member's last slot

    def __len__(self) -> int:
        return self.ends[-1] if self.ends else 0

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        return self.results[bisect.bisect_right(self.ends, i)]
