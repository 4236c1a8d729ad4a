"""The server-side limit on how often one session may ask for work (pages/_rerun_limit.py), against a real
`streamlit run app.py`: a session flooding its websocket with requests to run the page gets a few runs a second,
while a student of the same class keeps following the teacher's steps; without the limit the same flood gets many
times more. ``python -m cae.bench --classroom 60 --flood 3`` measures the class's step -> page times under it.
"""

import asyncio
import os
import threading
import time

import pytest
from support.servers import AppServer, until

from cae.classroom import open_store
from cae.classroom.loadtest import StudentSession, flood_client
from pages import _rerun_limit

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
