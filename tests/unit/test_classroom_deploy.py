"""The classroom behind a real nginx: two ``streamlit run app.py`` processes on one Redis, the recipe of
docs/classroom.md ("Several processes") as ``cae.classroom.deploy`` runs it, and real Streamlit sessions
(websockets speaking Streamlit's protocol, as the benchmark's students) going through nginx's port.

About 10-15 s here (two app processes start). Skipped, with the reason, where Debian's nginx or redis-server is not installed (``.ci/run`` installs both).
"""

import asyncio
import subprocess
import urllib.error
import urllib.request

import pytest
from support.servers import RedisServer, redis_binary
from support.servers import until as _until

from cae.bench.classroom import StudentSession
from cae.classroom import open_store
from cae.classroom.deploy import Deployment, nginx_binary, render_config, streamlit_static

STATE = {"stream": "moons", "n": "250", "noise": "0", "seed": "1", "algo": "CAE", "t": "12"}

needs_nginx = pytest.mark.skipif(nginx_binary() is None, reason="nginx is not installed (apt-get install nginx)")
needs_redis = pytest.mark.skipif(redis_binary() is None, reason="redis-server is not installed")


@needs_nginx
def test_the_config_template_renders_into_a_config_nginx_accepts(tmp_path):
    text = render_config([9101, 9102, 9103], 9100, tmp_path)
    assert "@@" not in text
    for port in (9101, 9102, 9103):
        assert f"server 127.0.0.1:{port} " in text
    assert "hash $cae_route consistent;" in text  # sticky by the browser's cookie, not by its address
    assert "proxy_set_header Upgrade $http_upgrade;" in text  # Streamlit's websocket goes through
    assert f'alias "{streamlit_static()}/";' in text  # Streamlit's own files, from disk
    (tmp_path / "nginx.conf").write_text(text)
    run = subprocess.run(
        [nginx_binary(), "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr


def test_the_config_is_given_streamlits_own_files_or_refuses(tmp_path):
    assert (streamlit_static() / "js").is_dir() and (streamlit_static() / "css").is_dir()
    with pytest.raises(FileNotFoundError, match="not Streamlit's static folder"):
        render_config([9101], 9100, tmp_path, static=tmp_path)


@needs_nginx
def test_nginx_serves_streamlits_files_itself_when_no_process_answers(tmp_path):
    """With the one app process killed, nginx still sends Streamlit's scripts: the whole file, compressed, as
    JavaScript, cached for good (their names carry their content's hash), named as nginx's; a page of the app
    is a 502 then. Served by a process, a script cut off as it died stayed failed in the page until a reload."""
    import gzip

    dep = Deployment(1, "sqlite:///" + str(tmp_path / "classroom.sqlite3"), folder=tmp_path / "nginx")
    try:
        script = next((streamlit_static() / "js").glob("PlotlyChart.*.js"))
        dep.kill(0)
        req = urllib.request.Request(f"{dep.url}/static/js/{script.name}", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req, timeout=30) as r:
            body, headers = r.read(), r.headers
        assert headers["Content-Type"] == "application/javascript" and headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(body) == script.read_bytes() and len(body) < script.stat().st_size / 2
        assert "immutable" in headers["Cache-Control"] and headers["X-CAE-Upstream"] == "nginx"
        css = next((streamlit_static() / "css").glob("*.css"))
        with urllib.request.urlopen(f"{dep.url}/static/css/{css.name}", timeout=30) as r:
            assert r.headers["Content-Type"] == "text/css" and r.read() == css.read_bytes()
        with pytest.raises(urllib.error.HTTPError) as page:
            urllib.request.urlopen(f"{dep.url}/classroom", timeout=30)
        assert page.value.code == 502  # (the app itself is gone)
    finally:
        dep.stop()


def test_every_proxied_location_writes_the_clients_address_itself():
    """nginx inherits proxy_set_header into a location only when it sets none of its own: each location that
    proxies must set the client headers itself, from $remote_addr (replacing what the client sent)."""
    import re

    from cae.classroom.deploy import TEMPLATE

    text = TEMPLATE.read_text()
    server = text[text.index("server {") :]
    head = [ln.split("#")[0] for ln in server[: server.index("location")].splitlines()]
    assert not any("proxy_set_header" in ln for ln in head)  # nothing at the server level to (not) inherit
    blocks = re.findall(r"location [^{]*\{(.*?)\n        \}", server, re.S)
    proxied = [b for b in blocks if "proxy_pass" in b]
    assert len(proxied) == 2
    for b in proxied:
        for line in (
            "proxy_set_header Host $http_host;",
            "proxy_set_header X-Real-IP $remote_addr;",
            "proxy_set_header X-Forwarded-For $remote_addr;",
            "proxy_set_header X-Forwarded-Proto $scheme;",
        ):
            assert line in b, (line, b)
        assert "$proxy_add_x_forwarded_for" not in b


def _upstream_of(url, cookies):
    req = urllib.request.Request(url, headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.headers.get("X-CAE-Upstream")


def _form_shown(session, qid):
    """The whole answer form of question ``qid`` has reached the page (its elements come one by one)."""
    keys = (f"w_room_case_{qid}", f"w_room_edge_{qid}", f"w_room_node_{qid}", "submit")
    return all(k in session.widget_ids for k in keys)


def _describe(sessions):
    return [
        (sorted(s.seen_at), s.upstreams, len(s.dropped_at), len(s.reconnected_at), s.alerts[-2:], s.errors)
        for s in sessions
    ]


async def _class(dep, store, code, token, n):
    from cae.app.explanations import QUIZ_CHOICES

    students = [store.join(code, f"student {k + 1}") for k in range(n)]
    sessions = [StudentSession(dep.url, f"room={code}&me={s.sid}", sticky=True, reconnect=True) for s in students]
    try:
        for s in sessions:
            await s.start()
        assert await _until(lambda: all(12 in s.seen_at for s in sessions), 240), [s.errors for s in sessions]
        ports = [str(p) for p in dep.ports()]
        where = [s.upstreams[-1].rsplit(":", 1)[-1] for s in sessions]
        assert set(where) <= set(ports)
        # sticky: every later request of a browser (its cookie) reaches the process that holds its session
        for s, w in zip(sessions, where):
            assert _upstream_of(dep.url + "/_stcore/health", s.cookies).rsplit(":", 1)[-1] == w
        # they follow a step and answer a question
        store.publish(code, token, dict(STATE, t="13"))
        assert await _until(lambda: all(13 in s.seen_at for s in sessions), 60)
        q = store.ask(code, token, 14, dict(STATE, t="13"))
        assert await _until(lambda: all(_form_shown(s, q.qid) for s in sessions), 60)
        for s in sessions:
            assert await s.answer(q.qid, (0, True, False), QUIZ_CHOICES)
        assert await _until(lambda: len(store.answers(code, q.qid)) == n, 60)
        # each keeps the page's browser id (the cookie a browser keeps), which the next process will see
        assert all("cae_browser" in s.cookies and "cae_route" in s.cookies for s in sessions)
        store.reveal(code, token, q.qid, (0, True, False))
        # one process is killed (SIGKILL); its students come back through nginx to the other one and follow
        victim = max(range(len(ports)), key=lambda i: where.count(ports[i]))
        moved = [s for s, w in zip(sessions, where) if w == ports[victim]]
        dep.kill(victim)
        store.publish(code, token, dict(STATE, t="15"))
        assert await _until(lambda: all(15 in s.seen_at for s in sessions), 120), _describe(sessions)
        for s in moved:
            assert s.dropped_at and s.reconnected_at
            assert s.upstreams[-1].rsplit(":", 1)[-1] not in ("", ports[victim])
        assert not [e for s in sessions for e in s.errors]
        # nothing lost: the answers given before are in the store; the moved students answer again
        assert len(store.answers(code, q.qid)) == n
        q2 = store.ask(code, token, 16, dict(STATE, t="15"))
        assert await _until(lambda: all(_form_shown(s, q2.qid) for s in sessions), 60)
        for s in sessions:
            assert await s.answer(q2.qid, (1, False, True), QUIZ_CHOICES)
        assert await _until(lambda: len(store.answers(code, q2.qid)) == n, 60)
        assert {a.choice for a in store.answers(code, q2.qid)} == {(1, False, True)}
        return len(moved)
    finally:
        await asyncio.gather(*(s.close() for s in sessions))


@needs_nginx
@needs_redis
def test_two_processes_behind_nginx_survive_one_killed(tmp_path):
    redis = RedisServer(tmp_path / "redis")
    try:
        dep = Deployment(2, redis.url, folder=tmp_path / "nginx")
        try:
            assert urllib.request.urlopen(dep.url + "/_stcore/health", timeout=30).read().strip() == b"ok"
            store = open_store(redis.url)
            code, token = store.create_room()
            store.publish(code, token, STATE)
            moved = asyncio.run(_class(dep, store, code, token, 4))
            assert moved >= 1
            assert dep.servers[0].proc.poll() is not None or dep.servers[1].proc.poll() is not None
        finally:
            dep.stop()
    finally:
        redis.stop()


# ------------------------------------------------------------------ the client's address behind nginx
async def _start_a_class(base, source=None, forged=None):
    """A page that presses *Start a class*, from the address ``source``, with a made-up X-Forwarded-For: True
    when the class was started, False when the page said it cannot be."""
    s = StudentSession(base, "", source=source, headers={"X-Forwarded-For": forged} if forged else None)
    try:
        await s.start()
        assert await _until(lambda: "Start a class" in s.buttons, 120), s.errors
        await s.press("Start a class")
        said = await _until(lambda: "room=" in s.query or any("cannot be started" in b for _, b in s.alerts), 60)
        assert said, (s.query, s.alerts, s.errors)
        return "room=" in s.query
    finally:
        await s.close()


async def _join_a_class(base, code, nick, source=None, forged=None):
    """A page that joins class ``code`` with ``nick``: True when it joined, False when the page said it cannot."""
    s = StudentSession(base, f"room={code}", source=source, headers={"X-Forwarded-For": forged} if forged else None)
    try:
        await s.start()
        assert await _until(lambda: "Join" in s.buttons and "w_room_nick" in s.widget_ids, 120), s.errors
        await s.press("Join", {"w_room_code": code, "w_room_nick": nick})
        said = await _until(lambda: "me=" in s.query or any("Cannot join" in b for _, b in s.alerts), 60)
        assert said, (s.query, s.alerts, s.errors)
        return "me=" in s.query
    finally:
        await s.close()


async def _limits_behind(dep, store):
    """Each address's pages one after another (its limit counts them in order); the addresses side by side (each
    has its own allowance, and joining is counted apart from starting)."""
    base = dep.url
    code, _ = store.create_room()

    async def forged():
        return [await _start_a_class(base, "127.0.0.1", f"203.0.113.{k}") for k in range(4)]

    async def plain():
        return [await _start_a_class(base, "127.0.0.3") for _ in range(3)]

    async def other_then_direct():
        other = await _start_a_class(base, "127.0.0.2")
        # straight to the app's port, from the same address, with a made-up header: that address, not the header
        app = f"http://127.0.0.1:{dep.ports()[0]}"
        return other, [await _start_a_class(app, "127.0.0.2", "198.51.100.9") for _ in range(2)]

    async def joins():
        made_up = [await _join_a_class(base, code, f"n{k}", "127.0.0.1", f"203.0.113.{k}") for k in range(4)]
        return made_up, await _join_a_class(base, code, "hall two", "127.0.0.2")

    f, p, (other, direct), (joined, another) = await asyncio.gather(forged(), plain(), other_then_direct(), joins())
    return f, p, other, direct, joined, another


@needs_nginx
def test_behind_nginx_a_forged_header_gets_no_more_and_two_clients_are_two(tmp_path):
    """Real Streamlit sessions through the recipe's nginx, each from an address of its own (the loopback has the
    whole 127/8): a session that writes a new X-Forwarded-For each time is limited exactly as one that writes
    none, and two addresses behind nginx are two clients."""
    url = "sqlite:///" + str(tmp_path / "classroom.sqlite3")
    limits = {
        "CAE_CLASSROOM_STARTS_PER_CLIENT": "2",
        "CAE_CLASSROOM_ROOMS_PER_CLIENT": "50",
        "CAE_CLASSROOM_JOINS_PER_CLIENT": "3",
    }
    import os

    dep = Deployment(1, url, folder=tmp_path / "nginx", env=dict(os.environ, **limits))
    try:
        forged, plain, other, direct, joins, another = asyncio.run(_limits_behind(dep, open_store(url)))
    finally:
        dep.stop()
    assert forged == [True, True, False, False]  # a new made-up address each time: still one client
    assert plain == [True, True, False]  # a plain client gets as many, no fewer
    assert other  # another address behind the same nginx is another client
    assert direct == [True, False]  # 127.0.0.2 had started one: the header sent straight to the app changes nothing
    assert joins == [True, True, True, False] and another


# ------------------------------------------------------------------ a trust setting that refuses nonsense
def _run_app(env, timeout=90):
    """``streamlit run app.py`` as the recipe starts it: ``(exit code or None while it still runs, its output)``."""
    import os
    import sys

    from cae.classroom.deploy import ROOT, free_port

    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true"]
    cmd += ["--server.port", str(free_port()), "--server.address", "127.0.0.1", "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=dict(os.environ, **env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        return None, out


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("0.0.0.0/0", ["'0.0.0.0/0' trusts every address"]),
        ("::/0,0.0.0.0/0", ["'::/0' trusts every address", "'0.0.0.0/0' trusts every address"]),
        ("127.0.0.1/0", ["'127.0.0.1/0' has host bits set under its prefix /0", "0.0.0.0/0 (every address)"]),
        ("10.0.0.1/8", ["'10.0.0.1/8' has host bits set under its prefix /8", "10.0.0.0/8 (16,777,216 addresses)"]),
        ("*", ["'*' is not an address or a network"]),
        ("127.0.0.1, my-nginx", ["'my-nginx' is not an address or a network"]),
    ],
)
def test_a_trust_setting_that_cannot_be_meant_stops_the_server_naming_it(value, named):
    code, out = _run_app({"CAE_TRUSTED_PROXIES": value})
    assert code == 2, out[-2000:]
    assert "CAE Explorer cannot start: CAE_TRUSTED_PROXIES entry" in out
    for words in named:
        assert words in out, (words, out[-2000:])
    assert "Traceback" not in out


async def _teacher_says(base, source=None, forged=None):
    """What a page that started a class (from ``source``, with a made-up X-Forwarded-For) shows its teacher."""
    s = StudentSession(base, "", source=source, headers={"X-Forwarded-For": forged} if forged else None)
    try:
        await s.start()
        assert await _until(lambda: "Start a class" in s.buttons, 120), s.errors
        await s.press("Start a class")
        # the teacher's page drawn: its controls come after what its header says
        assert await _until(lambda: "room=" in s.query and "Step 1 ▶" in s.buttons, 60), (s.alerts, s.errors)
        return " ".join(b for _, b in s.alerts)
    finally:
        await s.close()


def test_a_trusted_proxy_bypassed_is_said_on_the_teachers_page_and_every_start_says_what_it_trusts(tmp_path):
    """``CAE_TRUSTED_PROXIES=127.0.0.0/8`` without a proxy (the issue: every loopback client could forge its
    address, and nothing said so): the start says what is trusted, and a teacher whose page reached the app
    straight says that it did not come through a proxy — with a made-up header from 127.0.0.2, and without."""
    import os

    from cae.classroom.deploy import AppServer

    url = "sqlite:///" + str(tmp_path / "classroom.sqlite3")
    server = AppServer(dict(os.environ, CAE_CLASSROOM_URL=url, CAE_TRUSTED_PROXIES="127.0.0.0/8"))
    try:
        forged = asyncio.run(_teacher_says(server.url, "127.0.0.2", "203.0.113.9"))
        plain = asyncio.run(_teacher_says(server.url, "127.0.0.3"))
    finally:
        server.stop()
    log = open(server.log, encoding="utf-8", errors="replace").read()
    assert "CAE_TRUSTED_PROXIES: the X-Forwarded-For of a connection from 127.0.0.0/8 names the client" in log
    said = forged.replace("\\", "")
    assert "CAE_TRUSTED_PROXIES trusts 127.0.0.0/8 to say who a client is, but this page did not come through" in said
    assert f"it was sent straight to the app's own port {server.port}" in said
    assert "it carries no X-Forwarded-For, which a proxy always writes" in plain.replace("\\", "")


@needs_nginx
def test_through_the_recipes_nginx_the_teacher_is_told_nothing_about_the_proxy(tmp_path):
    import os

    url = "sqlite:///" + str(tmp_path / "classroom.sqlite3")
    dep = Deployment(1, url, folder=tmp_path / "nginx", env=dict(os.environ))
    try:
        said = asyncio.run(_teacher_says(dep.url, "127.0.0.2", "203.0.113.9"))
        log = open(dep.servers[0].log, encoding="utf-8", errors="replace").read()
    finally:
        dep.stop()
    assert "CAE_TRUSTED_PROXIES" not in said, said
    assert "CAE_TRUSTED_PROXIES: the X-Forwarded-For of a connection from 127.0.0.1/32 names the client" in log
