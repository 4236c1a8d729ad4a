"""Several app processes behind nginx: ``python -m cae.classroom.deploy --processes N --store redis://…``.

The deployment recipe of docs/classroom.md ("Several processes"), and what the benchmark runs
(``python -m cae.bench --classroom N --processes K --proxy nginx``): N ``streamlit run app.py`` processes on
127.0.0.1, each on its own port and all on one classroom store (``CAE_CLASSROOM_URL``), trusting only the
proxy on 127.0.0.1 for the client's address (``CAE_TRUSTED_PROXIES``), and Debian's nginx in
front of them with sticky sessions by a cookie (the config: ``docs/deploy/nginx.conf.template``, rendered for
the processes' ports). nginx runs without root: its config, pid, logs and temporary files live in a folder of
its own (``nginx -p DIR -c DIR/nginx.conf -g 'daemon off;'``).

The processes themselves are here too: :class:`AppServer` (``streamlit run app.py`` on a free port) and
:class:`RedisServer` (``redis-server`` in a folder of its own), which the classroom's load benchmark
(:mod:`cae.bench.classroom`) and the tests start as well. Only the benchmark, its tests and the command line use this
module; the app never imports it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

__all__ = [
    "AppServer",
    "RedisServer",
    "redis_binary",
    "free_port",
    "TEMPLATE",
    "nginx_binary",
    "render_config",
    "streamlit_static",
    "Deployment",
    "main",
]

#: the checkout this module runs from (app.py, docs/deploy/)
ROOT = Path(__file__).resolve().parent.parent.parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_binary():
    for cand in (shutil.which("redis-server"), "/usr/bin/redis-server", "/usr/sbin/redis-server"):
        if cand and Path(cand).exists():
            return cand
    return None


class RedisServer:
    """``redis-server`` on 127.0.0.1:PORT with its files in ``folder``; ``stop()`` ends it, ``kill()`` kills it.

    No persistence by default; ``persist=True`` keeps every write in an append-only file synced at once
    (``appendfsync always``), so a server killed and started again on the same folder has every class.
    """

    def __init__(self, folder, port=None, persist=False):
        binary = redis_binary()
        if binary is None:
            raise FileNotFoundError("redis-server is not installed (apt-get install redis-server)")
        self.port = port or free_port()
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder)]
        args += ["--save", "", "--logfile", str(self.folder / "redis.log")]
        args += ["--appendonly", "yes", "--appendfsync", "always"] if persist else ["--appendonly", "no"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not start: " + (self.folder / "redis.log").read_text(errors="replace"))

    def kill(self):
        """End the server at once (SIGKILL), as a crash or an out-of-memory kill would."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def rss_mb(pid):
    """Resident memory of a process in MB (Linux /proc), or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid):
    """User + system CPU time a process has used, in seconds (Linux /proc), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class AppServer:
    """``streamlit run app.py`` on a free port (or ``port``) with ``env``; ``stop()`` ends it."""

    def __init__(self, env, port=None):
        app = ROOT / "app.py"
        if not app.exists():
            raise FileNotFoundError(f"{app} is not there: run the benchmark from a checkout of the repository")
        self.env = env
        self.port = port or free_port()
        cmd = [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless", "true"]
        cmd += ["--server.port", str(self.port), "--server.address", "127.0.0.1"]
        cmd += ["--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
        fd, self.log = tempfile.mkstemp(prefix="cae-bench-server-", suffix=".log")
        with os.fdopen(fd, "wb") as log:  # the child keeps its own copy of the file
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(self.url + "/_stcore/health", timeout=2).read().strip() == b"ok":
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("the app server did not start; its log: " + self.log)

    def rss_mb(self):
        return rss_mb(self.proc.pid)

    def cpu_seconds(self):
        return cpu_seconds(self.proc.pid)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


#: the nginx config, with @@PREFIX@@, @@LISTEN@@, @@UPSTREAMS@@ and @@STATIC@@ to fill
TEMPLATE = ROOT / "docs" / "deploy" / "nginx.conf.template"


def streamlit_static():
    """The folder of Streamlit's own files that its pages load from ``/static/`` (its scripts, styles and fonts):
    those of the Streamlit the app processes run, which nginx serves from disk. (Found, not imported: the package
    uses no Streamlit outside its glue.)"""
    import importlib.util

    spec = importlib.util.find_spec("streamlit")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("Streamlit is not installed: the app processes need it")
    return Path(spec.origin).resolve().parent / "static" / "static"


def nginx_binary():
    """Debian's nginx (``apt-get install nginx``), or None where it is not installed."""
    for cand in (shutil.which("nginx"), "/usr/sbin/nginx", "/usr/bin/nginx"):
        if cand and Path(cand).exists():
            return cand
    return None


def render_config(ports, listen, prefix, template=TEMPLATE, static=None):
    """The nginx config for app processes on 127.0.0.1's ``ports``, nginx listening on ``listen``.

    Parameters
    ----------
    ports : list of int
        The app processes' ports.
    listen : int or str
        nginx's port (or ``address:port``).
    prefix : str or Path
        nginx's own folder: its pid, logs and temporary files.
    template : Path
        The template (default: ``docs/deploy/nginx.conf.template``).
    static : Path, optional
        Streamlit's own files, which nginx serves itself (default: :func:`streamlit_static`, the Streamlit of this
        interpreter, the one the app processes run).

    Returns
    -------
    str
        The config, ready for ``nginx -c``.
    """
    if not ports:
        raise ValueError("at least one app process is needed")
    static = Path(static) if static is not None else streamlit_static()
    if not (static / "js").is_dir():
        raise FileNotFoundError(f"{static} holds no Streamlit scripts (js/): not Streamlit's static folder")
    if '"' in str(static):
        raise ValueError(f"nginx cannot be given a folder whose name holds a double quote: {static}")
    upstreams = "\n".join(f"        server 127.0.0.1:{int(p)} max_fails=1 fail_timeout=10s;" for p in ports)
    text = Path(template).read_text()
    return (
        text.replace("@@PREFIX@@", str(prefix))
        .replace("@@LISTEN@@", str(listen))
        .replace("@@UPSTREAMS@@", upstreams)
        .replace("@@STATIC@@", str(static))
    )


def _healthy(url, timeout=2.0):
    try:
        return urllib.request.urlopen(url, timeout=timeout).read().strip() == b"ok"
    except OSError:
        return False


class Deployment:
    """``processes`` app processes on the store ``store_url`` and nginx in front of them on ``port``.

    ``url`` is nginx's address (what students open); ``servers`` the app processes; ``kill(i)`` ends process
    ``i`` at once (SIGKILL, as a crash would); ``stop()`` ends everything this started. ``template``: nginx's
    config to render (:data:`TEMPLATE`; a benchmark renders a variant).
    """

    def __init__(self, processes, store_url, port=None, folder=None, env=None, template=TEMPLATE):
        binary = nginx_binary()
        if binary is None:
            raise FileNotFoundError("nginx is not installed (apt-get install nginx)")
        if int(processes) < 1:
            raise ValueError("--processes must be at least 1")
        self._tmp = None
        if folder is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="cae-deploy-")
            folder = self._tmp.name
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = int(port) if port else free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.servers = []
        self.nginx = None
        app_env = dict(os.environ if env is None else env, CAE_CLASSROOM_URL=store_url)
        # the app processes listen on 127.0.0.1 only, and every request reaches them through this nginx, which
        # writes the client's address into X-Forwarded-For: the one proxy whose header they believe
        app_env.setdefault("CAE_TRUSTED_PROXIES", "127.0.0.1")
        # and only CAE_TRUSTED_PROXIES decides: Streamlit's server (uvicorn) would otherwise put the X-Forwarded-For
        # of every connection from 127.0.0.1 in its place before the app sees it (its FORWARDED_ALLOW_IPS)
        app_env.setdefault("FORWARDED_ALLOW_IPS", "")
        try:
            with ThreadPoolExecutor(int(processes)) as pool:
                futures = [pool.submit(AppServer, app_env) for _ in range(int(processes))]
                for f in futures:
                    try:
                        self.servers.append(f.result())
                    except Exception:  # noqa: BLE001 - the others are still collected and stopped
                        pass
            if len(self.servers) < int(processes):
                raise RuntimeError(f"{int(processes) - len(self.servers)} app process(es) did not start")
            self.config = self.folder / "nginx.conf"
            self.config.write_text(
                render_config([s.port for s in self.servers], self.port, self.folder, template=template)
            )
            self.log = self.folder / "nginx.out"
            with open(self.log, "wb") as log:
                self.nginx = subprocess.Popen(
                    [binary, "-p", str(self.folder), "-c", str(self.config), "-g", "daemon off;"],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            deadline = time.time() + 30
            while not _healthy(self.url + "/nginx-health"):
                if self.nginx.poll() is not None or time.time() > deadline:
                    raise RuntimeError("nginx did not start: " + self.log.read_text(errors="replace")[-2000:])
                time.sleep(0.1)
        except BaseException:
            self.stop()
            raise

    def ports(self):
        """The app processes' ports, in order."""
        return [s.port for s in self.servers]

    def kill(self, i):
        """End app process ``i`` at once (SIGKILL): its sessions drop, nginx sends its students elsewhere."""
        proc = self.servers[i].proc
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait()

    def restart(self, i):
        """Start app process ``i`` again on its port (after :meth:`kill`): nginx sends requests to it again once
        its ``fail_timeout`` has passed."""
        old = self.servers[i]
        old.stop()
        self.servers[i] = AppServer(old.env, port=old.port)

    def rss_mb(self):
        """The live app processes' resident memory, summed, in MB."""
        return sum(s.rss_mb() or 0.0 for s in self.servers if s.proc.poll() is None)

    def cpu_seconds(self):
        """CPU time the app processes have used, summed, in seconds (a killed one no longer counts)."""
        return sum(s.cpu_seconds() or 0.0 for s in self.servers if s.proc.poll() is None)

    def stop(self):
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.terminate()
            try:
                self.nginx.wait(10)
            except subprocess.TimeoutExpired:
                self.nginx.kill()
                self.nginx.wait()
        for s in self.servers:
            s.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def main(argv=None):
    """The command line: start the processes and nginx, print the address, run until Ctrl-C."""
    ap = argparse.ArgumentParser(
        prog="python -m cae.classroom.deploy",
        description="N app processes on one classroom store, behind nginx with sticky sessions.",
    )
    ap.add_argument("--processes", type=int, default=2, help="app processes (default 2; about one per core)")
    ap.add_argument("--port", type=int, default=8501, help="nginx's port, what students open (default 8501)")
    ap.add_argument(
        "--store",
        default=os.environ.get("CAE_CLASSROOM_URL", ""),
        help="the shared store, redis://host:port/db (default: $CAE_CLASSROOM_URL); 'start' starts a redis-server",
    )
    ap.add_argument("--folder", default=None, help="nginx's folder: config, pid, logs (default: a temporary one)")
    ap.add_argument("--print-config", action="store_true", help="print the config for --processes ports and exit")
    args = ap.parse_args(argv)
    if args.print_config:
        ports = [args.port + 1 + k for k in range(args.processes)]
        print(render_config(ports, args.port, args.folder or "/var/lib/cae-nginx"))
        return 0
    if not args.store:
        ap.error("--store is needed (redis://… shared by every process, or 'start')")
    if not args.store.startswith("redis://") and args.store != "start":
        ap.error("several processes need a store they all share: --store redis://… (or 'start')")
    redis_server = None
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        if args.store == "start":
            redis_server = RedisServer(Path(tempfile.mkdtemp(prefix="cae-deploy-redis-")), persist=True)
            args.store = redis_server.url
        dep = Deployment(args.processes, args.store, port=args.port, folder=args.folder)
        try:
            print(f"{args.processes} app process(es) on ports {dep.ports()}, store {args.store}", flush=True)
            print(f"students open {dep.url} (nginx's folder: {dep.folder}); Ctrl-C stops everything", flush=True)
            while dep.nginx.poll() is None:
                time.sleep(1.0)
            print("nginx ended: " + dep.log.read_text(errors="replace")[-2000:], flush=True)
            return 1
        finally:
            dep.stop()
    except (FileNotFoundError, RuntimeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    finally:
        if redis_server is not None:
            redis_server.stop()


if __name__ == "__main__":
    sys.exit(main())
