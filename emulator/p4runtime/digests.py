"""Digest lists as the P4Runtime spec's DigestEntry.Config asks and PI/simple_switch_grpc delivers them.

Per configured digest: messages are gathered into a list, sent when it holds `max_list_size` messages (0: no
limit) or when `max_timeout_ns` has passed since its first message (0: at once, one list per packet's digests).
With `ack_timeout_ns` > 0 a message whose data is already in a list not yet acknowledged (DigestListAck) and not
older than `ack_timeout_ns` is suppressed, so a learning controller hears of a new MAC once, not once per packet;
an ack (or the timeout) lets the same data be reported again.

    lists = DigestLists(configs)             # configs: digest id -> p4.v1.DigestEntry.Config (written by clients)
    for did, list_id, values in lists.add(did, samples, now_ns): send ...
    lists.ack(did, list_id); for ... in lists.tick(now_ns): send ...
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class _Digest:
    config: object  # the DigestEntry.Config this state was built for
    filling: list = field(default_factory=list)  # samples of the list not sent yet
    first_ns: int = 0  # when the list being filled got its first sample
    next_list_id: int = 1
    unacked: dict = field(default_factory=dict)  # list id -> (sent at ns, its samples)
    pending: set = field(default_factory=set)  # samples in `filling` or in an unacknowledged list


class DigestLists:
    def __init__(self, configs: dict):
        self.configs = configs
        self._state: dict[int, _Digest] = {}
        self._lock = threading.Lock()

    def _digest(self, did: int) -> _Digest | None:
        """The state of a configured digest; rebuilt when the client changed (or removed) its config."""
        cfg = self.configs.get(did)
        st = self._state.get(did)
        if cfg is None:
            self._state.pop(did, None)
            return None
        if st is None or st.config is not cfg:
            st = self._state[did] = _Digest(cfg, next_list_id=st.next_list_id if st else 1)
        return st

    def add(self, did: int, samples: list[tuple], now_ns: int) -> list[tuple[int, int, list]]:
        """Take the samples of one packet; the lists now due, as (digest id, list id, samples)."""
        out = []
        with self._lock:
            st = self._digest(did)
            if st is None:
                return out
            cfg = st.config
            for s in samples:
                s = tuple(s)
                if cfg.ack_timeout_ns > 0:
                    if s in st.pending:
                        continue
                    st.pending.add(s)
                if not st.filling:
                    st.first_ns = now_ns
                st.filling.append(s)
                if cfg.max_list_size and len(st.filling) >= cfg.max_list_size:
                    out.append(self._send(did, st, now_ns))
            if st.filling and cfg.max_timeout_ns <= 0:
                out.append(self._send(did, st, now_ns))
        return out

    def _send(self, did: int, st: _Digest, now_ns: int) -> tuple[int, int, list]:
        list_id, samples = st.next_list_id, st.filling
        st.next_list_id += 1
        st.filling = []
        if st.config.ack_timeout_ns > 0:
            st.unacked[list_id] = (now_ns, samples)
        return did, list_id, samples

    def ack(self, did: int, list_id: int) -> None:
        with self._lock:
            st = self._state.get(did)
            if st is not None and list_id in st.unacked:
                st.pending.difference_update(st.unacked.pop(list_id)[1])

    def tick(self, now_ns: int) -> list[tuple[int, int, list]]:
        """Lists whose max_timeout_ns ran out; forget unacknowledged lists older than ack_timeout_ns."""
        out = []
        with self._lock:
            for did in list(self._state):
                st = self._digest(did)
                if st is None:
                    continue
                cfg = st.config
                if st.filling and now_ns - st.first_ns >= cfg.max_timeout_ns:
                    out.append(self._send(did, st, now_ns))
                for lid, (sent, samples) in list(st.unacked.items()):
                    if now_ns - sent >= cfg.ack_timeout_ns:
                        del st.unacked[lid]
                        st.pending.difference_update(samples)
        return out
