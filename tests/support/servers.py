"""Real servers for the classroom tests: the benchmark's own (a `redis-server` on a free port in a temporary
folder; a `streamlit run app.py`)."""

from cae.classroom.loadtest import AppServer, RedisServer, free_port, redis_binary
from cae.classroom.loadtest import wait_until as until

__all__ = ["AppServer", "RedisServer", "free_port", "redis_binary", "until"]
