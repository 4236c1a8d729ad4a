"""Real servers for the classroom tests: the benchmark's own (a `redis-server` on a free port in a temporary
folder; a `streamlit run app.py`)."""

from cae.bench.classroom import wait_until as until
from cae.classroom.deploy import AppServer, RedisServer, free_port, redis_binary

__all__ = ["AppServer", "RedisServer", "free_port", "redis_binary", "until"]
