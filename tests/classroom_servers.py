"""Real servers for the classroom tests: a `redis-server` of our own on a free port in a temporary folder."""

import shutil
import socket
import subprocess
import time
from pathlib import Path


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
    """``redis-server`` on 127.0.0.1:PORT with its files in ``folder``, no persistence; ``stop()`` ends it."""

    def __init__(self, folder, port=None):
        binary = redis_binary()
        if binary is None:
            raise FileNotFoundError("redis-server is not installed (apt-get install redis-server)")
        self.port = port or free_port()
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
                "--logfile",
                str(self.folder / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
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

    def memory_bytes(self):
        import redis

        return int(redis.Redis.from_url(self.url).info("memory")["used_memory"])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
