"""Real servers for the classroom tests: the benchmark's own (a `redis-server` on a free port in a temporary
folder; a `streamlit run app.py`)."""

import asyncio
import time

from cae.classroom.loadtest import AppServer, RedisServer, free_port, redis_binary

__all__ = ["AppServer", "RedisServer", "free_port", "redis_binary", "until"]


async def until(cond, timeout):
    """Wait (asynchronously) until ``cond()`` holds or ``timeout`` seconds pass; the last ``cond()``."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        await asyncio.sleep(0.05)
    return cond()
