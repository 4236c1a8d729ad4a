"""The server pushes the teacher's steps to the students' pages (``cae/streamlit_glue/classroom_push.py``).

A real ``streamlit run app.py`` and real Streamlit sessions over websockets (the benchmark's students, no
browser). The students here never ask for the page's timed reruns, so a step that reaches them was pushed.
The browser tests (``tests/browser/test_classroom_browser.py``) follow steps in Chromium as well.
"""

import asyncio
import time

import pytest
from support.servers import until as _until

from cae.bench.classroom import StudentSession
from cae.classroom import open_store
from cae.streamlit_glue import classroom_push as push

STATE = {"stream": "moons", "n": "250", "noise": "0", "seed": "1", "algo": "CAE", "t": "12"}


def test_this_streamlit_lets_the_server_push():
    # without these, the pages ask every second as before (and a class of 500 no longer fits one process)
    assert push.supported()
    assert not push.available()  # no Streamlit server in this process: nothing to push to, no thread started


@pytest.mark.slow
def test_a_step_reaches_pages_that_never_ask(classroom_server):
    store = open_store(classroom_server.store)
    code, token = store.create_room()
    store.publish(code, token, STATE)
    students = [store.join(code, f"student {k}") for k in range(3)]

    async def run():
        sessions = [StudentSession(classroom_server, f"room={code}&me={s.sid}", timers=False) for s in students]
        for s in sessions:
            await s.start()
        assert await _until(lambda: all(12 in s.seen_at for s in sessions), 60), [s.errors for s in sessions]
        took = []
        for t in (13, 14, 20):
            sent = time.time()
            store.publish(code, token, dict(STATE, t=str(t)))
            assert await _until(lambda t=t: all(t in s.seen_at for s in sessions), 10), [
                sorted(s.seen_at) for s in sessions
            ]
            took += [s.seen_at[t] - sent for s in sessions]
        # a page that has drawn the class as it is is left alone (not pushed again and again)
        await asyncio.sleep(1.0)
        runs = [s.runs_finished for s in sessions]
        await asyncio.sleep(2.0)
        assert [s.runs_finished for s in sessions] == runs
        # a question and its reveal reach them the same way
        q = store.ask(code, token, 21, dict(STATE, t="20"))
        assert await _until(lambda: all(f"w_room_case_{q.qid}" in s.widget_ids for s in sessions), 10)
        # and so does the end of the class
        store.close(code, token)
        assert await _until(lambda: all(any("ended this class" in b for _, b in s.alerts) for s in sessions), 10)
        for s in sessions:
            await s.close()
        return took

    took = asyncio.run(run())
    assert max(took) < 5, took  # the page asks by itself every 15 s (FALLBACK_SECONDS); these never asked
