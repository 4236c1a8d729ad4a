"""The server-side limit on how often one person may ask for work (cae/streamlit_glue/rerun_limit.py): counted per student
(their seat) and per client address across all their connections, so that a page which keeps opening fresh
connections gets no fresh allowance with each. Against a real `streamlit run app.py`: a session flooding its
websocket gets a few runs a second, and a student churning connections stalls nobody, while a student of the same
class keeps following the teacher's steps; without the limit the same attacks stall the class.
``python -m cae.bench --classroom 60 --flood 3`` and ``--flood-churn 3`` measure the class's step -> page times.
"""

import asyncio
import os
import threading
import time

import pytest
from support.servers import AppServer, until

from cae.bench.classroom import Flood, StudentSession, flood_client
from cae.classroom import open_store
from cae.streamlit_glue import rerun_limit as _rerun_limit

STATE = {"stream": "moons", "n": "250", "noise": "0", "seed": "1", "algo": "CAE", "t": "12"}


def test_this_streamlit_reads_its_websocket_where_the_limit_waits():
    assert _rerun_limit.supported()


def test_a_session_waits_its_turn_once_its_burst_is_spent():
    import doctest

    assert doctest.testmod(_rerun_limit).failed == 0  # (pages/ is not among pytest's doctest paths)
    b = _rerun_limit.Bucket(per_second=3.0, burst=20, now=0.0)
    waits = [b.take(0.0) for _ in range(23)]
    assert waits[:20] == [0.0] * 20 and waits[20:] == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert b.take(100.0) == 0.0  # refilled (to the burst, no more)
    assert _rerun_limit.rate({"CAE_RERUNS_PER_SECOND": "-1"}) == 0.0


def _seat_message(query):
    from streamlit.proto.BackMsg_pb2 import BackMsg

    m = BackMsg()
    m.rerun_script.query_string = query
    return m.SerializeToString()


def _connection(client="127.0.0.1", forwarded=None):
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    return {"type": "websocket", "path": "/_stcore/stream", "client": (client, 40000), "headers": headers}


def test_a_students_connections_share_one_allowance_and_others_share_their_address(monkeypatch):
    """Whose allowance each message is counted in: a seat the store knows, over every connection of its link; a
    link that names no known seat, its client's address (a forged X-Forwarded-For changes nothing)."""
    monkeypatch.delenv("CAE_TRUSTED_PROXIES", raising=False)
    monkeypatch.setattr(_rerun_limit, "_SEATS", {})
    monkeypatch.setattr(_rerun_limit, "_SEAT_KNOWN", [lambda room, me: (room, me) == ("ACEFH3", "ann-seat")])
    ann = _seat_message("room=ACEFH3&me=ann-seat")

    async def people():
        first, second, third = _connection(), _connection(), _connection("127.0.0.2")
        out = [await _rerun_limit.person_of(c, ann) for c in (first, second, third)]
        out.append(await _rerun_limit.person_of(first, _seat_message("")))  # a fragment's rerun: its connection's
        out.append(await _rerun_limit.person_of(_connection(), _seat_message("room=ACEFH3&me=made-up")))
        out.append(await _rerun_limit.person_of(_connection("127.0.0.1", "203.0.113.9"), _seat_message("")))
        out.append(await _rerun_limit.person_of(_connection("127.0.0.2"), b"not a message"))
        return out

    got = asyncio.run(people())
    seat = ("seat", "ACEFH3", "ann-seat")
    assert got[:4] == [seat, seat, seat, seat]  # three connections (one from elsewhere), one allowance
    assert got[4:] == [("address", "127.0.0.1"), ("address", "127.0.0.1"), ("address", "127.0.0.2")]


def test_a_new_connection_costs_more_and_the_budget_is_the_persons():
    b = _rerun_limit.Bucket(per_second=3.0, burst=20, now=0.0)
    # a page that reconnects four times, 1 + CONNECT_COST each, has spent its burst: the fifth waits
    waits = [b.take(0.0, cost=1 + _rerun_limit.CONNECT_COST) for _ in range(5)]
    assert waits[:4] == [0.0] * 4 and waits[4] == pytest.approx(5 / 3)
    assert _rerun_limit.client_rate({}) == _rerun_limit.CLIENT_RATE and _rerun_limit.CLIENT_BURST >= 10 * 20


def _flood_a_class(tmp_path, limit):
    """A server, a class with one following student and one flooding session for 6 s: (the flood's runs, the
    requests it sent, the student's step -> page time in seconds, None when not shown within 30 s)."""
    url = "sqlite:///" + str(tmp_path / f"c{limit}.sqlite3")
    server = AppServer(dict(os.environ, CAE_CLASSROOM_URL=url, CAE_RERUNS_PER_SECOND=str(limit)))
    try:
        store = open_store(url)
        code, token = store.create_room()
        store.publish(code, token, STATE)
        student, flooder = store.join(code, "Ann"), store.join(code, "Flood")

        async def run():
            ann = StudentSession(server.url, f"room={code}&me={student.sid}")
            await ann.start()
            assert await until(lambda: 12 in ann.seen_at, 120)
            got, stop = {}, threading.Event()
            thread = threading.Thread(
                target=lambda: got.update(
                    out=flood_client(server.url, f"room={code}&me={flooder.sid}", lambda: stop.is_set())
                )
            )
            thread.start()
            await asyncio.sleep(3.0)
            sent = time.time()
            store.publish(code, token, dict(STATE, t="13"))
            followed = await until(lambda: 13 in ann.seen_at, 30)
            await asyncio.sleep(3.0)
            stop.set()
            await asyncio.to_thread(thread.join, 30)
            await ann.close()
            return got["out"][1], got["out"][0], (ann.seen_at[13] - sent) if followed else None

        return asyncio.run(run())
    finally:
        server.stop()


@pytest.mark.slow
def test_a_flooding_session_gets_a_few_runs_a_second_and_the_class_follows(tmp_path):
    runs, sent, delay = _flood_a_class(tmp_path, _rerun_limit.RATE)
    # about 6 s of flood: at most the burst and RATE a second (each request may restart a run: fewer finish)
    assert runs <= _rerun_limit.BURST + 7 * _rerun_limit.RATE, (runs, sent)
    assert sent > 10 * runs  # the rest waited in its own socket
    assert delay is not None and delay < 5.0, delay
    # the same flood without the limit: every request restarts the flooder's page, and the class waits
    # (measured here: the step shown after 13 s, the flood's page never finished once)
    _, _, unlimited = _flood_a_class(tmp_path, 0)
    assert unlimited is None or unlimited > 3 * delay, (unlimited, delay)


def _churn_a_class(tmp_path, limit):
    """A server, a class with one following student and three students churning connections (8 at a time: open,
    20 requests to run the page, close) for 6 s: (connections they opened, the student's step -> page time in
    seconds, None when not shown within 30 s)."""
    url = "sqlite:///" + str(tmp_path / f"churn{limit}.sqlite3")
    server = AppServer(dict(os.environ, CAE_CLASSROOM_URL=url, CAE_RERUNS_PER_SECOND=str(limit)))
    try:
        store = open_store(url)
        code, token = store.create_room()
        store.publish(code, token, STATE)
        student = store.join(code, "Ann")
        churners = [store.join(code, f"Churn {k}") for k in range(3)]

        async def run():
            ann = StudentSession(server.url, f"room={code}&me={student.sid}")
            await ann.start()
            assert await until(lambda: 12 in ann.seen_at, 120)
            churn = Flood(server.url, [f"room={code}&me={c.sid}" for c in churners], churn=8)
            await asyncio.sleep(3.0)
            sent = time.time()
            store.publish(code, token, dict(STATE, t="13"))
            followed = await until(lambda: 13 in ann.seen_at, 30)
            await asyncio.sleep(3.0)
            rows, _ = await asyncio.to_thread(churn.stop)
            await ann.close()
            return sum(r[0] for r in rows), (ann.seen_at[13] - sent) if followed else None

        return asyncio.run(run())
    finally:
        server.stop()


@pytest.mark.slow
def test_a_student_churning_connections_gets_no_fresh_allowance_and_the_class_follows(tmp_path):
    opened, delay = _churn_a_class(tmp_path, _rerun_limit.RATE)
    assert opened > 100  # they kept opening connections all along (the server closed each as its client left)
    assert delay is not None and delay < 5.0, delay
    # the same churn counted per socket (no limit at all here): the class waits behind the churners' pages. With one
    # following student the wait is short either way (0.39 and 0.47 s without the limit against 0.25 and 0.21 s
    # with it, in two runs of the suite on both cores, where "3 times as long" failed once): longer, not by a ratio.
    # (The benchmark's 30 students: p95 8.83 s without the limit, 0.27 s with it: docs/performance.md.)
    _, unlimited = _churn_a_class(tmp_path, 0)
    assert unlimited is None or unlimited > delay, (unlimited, delay)
