"""The classroom store in Redis (redis-py): for a deployment with several app processes or machines.

Point the app at it with ``CAE_CLASSROOM_URL=redis://host:6379/0`` (``rediss://`` for TLS, a password as
``redis://:secret@host``). Each room is a handful of keys sharing the hash tag ``{CODE}``; each key
expires with its room (``EXPIREAT``), and a sorted set ``PREFIX:rooms`` (code → expiry) counts the
rooms for the limit and lists them for :meth:`purge`. Every write is one Lua script — checks (the
teacher's token, a limit, an answer given already) and writes run atomically on the server, so two
app processes can never both take the last seat, and a failure leaves the room as it was.

Keys of room ``C`` (prefix ``P``)::

    P:{C}:room       hash: token_hash created expires closed version state state_at nq ns locked owner renamed
    P:{C}:students   hash: sid -> {"nickname", "joined", "seq"}
    P:{C}:seen       hash: sid -> last time the student's page asked for news
    P:{C}:holders    hash: sid -> the browser session holding the student's place
    P:{C}:nicks      hash: nickname key -> sid (the uniqueness of nicknames)
    P:{C}:removed    hash: sid -> when the teacher removed the student
    P:{C}:banned     hash: browser -> the removed student whose place it held (it cannot join again)
    P:{C}:q          hash: qid -> {"step", "state", "opened", "kind"}
    P:{C}:revealed   hash: qid -> the truth (JSON)
    P:{C}:a:QID      hash: sid -> {"choice", "at", "seq"}

and, for the whole store, ``P:epoch`` (the store's identity, :meth:`RedisStore.epoch`: a Redis that restarted
without its data has none, so a lost class is told apart from an ended one), ``P:owner:OWNER`` (the open
rooms a client started: code → expiry) and ``P:rate:BUCKET`` (a rate limit's counter, expiring with its window).
"""

from __future__ import annotations

import json
import threading
import time

from .store import (
    CLAIM_SECONDS,
    CLOSED_GRACE,
    MOVED_ON,
    REMOVED_BROWSER,
    Answer,
    AnswerRefused,
    BadInput,
    Claim,
    ClassroomStore,
    Conflict,
    LimitReached,
    Limits,
    Locked,
    NotTeacher,
    Poll,
    Question,
    QuestionOpen,
    Removed,
    Room,
    RoomNotFound,
    Stale,
    StoreUnavailable,
    Student,
    changed_since,
    check_choice,
    clean_nickname,
    new_room_code,
    new_secret,
    nickname_key,
    normalize_code,
    question_open,
    revealed_already,
    state_json,
    token_hash,
    token_matches,
    unique_nickname,
)

__all__ = ["RedisStore"]

# Lua: every script gets KEYS[1] = the room's hash and derives the room's other keys from it (same hash tag).
_COMMON = """
local room = KEYS[1]
local base = string.sub(room, 1, -6)  -- strip ':room'
local function err(kind) return {'err', kind} end
local function open_room(now, allow_closed)
  local f = redis.call('HMGET', room, 'expires', 'closed')
  if not f[1] or tonumber(f[1]) <= now then return false end
  if f[2] == '1' and not allow_closed then return false end
  return true
end
local function keep(key)
  redis.call('EXPIREAT', key, math.ceil(tonumber(redis.call('HGET', room, 'expires'))))
end
local function teacher(now, th)
  if not open_room(now, false) then return 'notfound' end
  if redis.call('HGET', room, 'token_hash') ~= th then return 'notteacher' end
  return nil
end
"""

_CREATE = """
local rooms, owned = KEYS[2], KEYS[3]
local now, code, th, expires, max_rooms = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', rooms, '-inf', now)
if redis.call('ZCARD', rooms) >= max_rooms then return err('rooms') end
if ARGV[6] ~= '' then
  redis.call('ZREMRANGEBYSCORE', owned, '-inf', now)
  if redis.call('ZCARD', owned) >= tonumber(ARGV[7]) then return err('owner') end
end
if redis.call('EXISTS', room) == 1 then return err('taken') end
redis.call('HSET', room, 'token_hash', th, 'created', ARGV[1], 'expires', expires, 'closed', '0',
           'version', '0', 'state', '{}', 'state_at', ARGV[1], 'nq', '0', 'ns', '0', 'locked', '0', 'owner', ARGV[6])
keep(room)
redis.call('ZADD', rooms, expires, code)
if ARGV[6] ~= '' then
  redis.call('ZADD', owned, expires, code)
  redis.call('EXPIREAT', owned, math.ceil(tonumber(expires)))
end
return {'ok'}
"""

_ROTATE = """
local e = teacher(tonumber(ARGV[1]), ARGV[2]); if e then return err(e) end
redis.call('HSET', room, 'token_hash', ARGV[3])
return {'ok'}
"""

_LOCK = """
local e = teacher(tonumber(ARGV[1]), ARGV[2]); if e then return err(e) end
redis.call('HSET', room, 'locked', ARGV[3])
return {'ok', redis.call('HINCRBY', room, 'version', 1)}
"""

_ALLOW = """
local n = redis.call('INCR', room)
if n == 1 then redis.call('EXPIRE', room, tonumber(ARGV[2])) end
if n > tonumber(ARGV[1]) then return {'ok', 0} end
return {'ok', 1}
"""

# ARGV: now, token hash, state, the state expected there ('' for any: no compare-and-set)
_PUBLISH = """
local e = teacher(tonumber(ARGV[1]), ARGV[2]); if e then return err(e) end
if ARGV[4] ~= '' then
  local cur = redis.call('HGET', room, 'state')
  if cur ~= ARGV[4] then
    if cur == ARGV[3] then return {'ok', redis.call('HGET', room, 'version')} end
    return {'conflict', cur}
  end
end
redis.call('HSET', room, 'state', ARGV[3], 'state_at', ARGV[1])
return {'ok', redis.call('HINCRBY', room, 'version', 1)}
"""

_CLOSE = """
local rooms = KEYS[2]
local now = tonumber(ARGV[1])
local e = teacher(now, ARGV[2]); if e then return err(e) end
local exp = math.min(tonumber(redis.call('HGET', room, 'expires')), now + tonumber(ARGV[3]))
redis.call('HSET', room, 'closed', '1', 'expires', tostring(exp))
redis.call('HINCRBY', room, 'version', 1)
if KEYS[3] then redis.call('ZREM', KEYS[3], ARGV[4]) end
for _, k in ipairs({room, base .. ':students', base .. ':seen', base .. ':nicks', base .. ':q', base .. ':revealed',
                    base .. ':holders', base .. ':removed', base .. ':banned'}) do
  if redis.call('EXISTS', k) == 1 then keep(k) end
end
for qid = 1, tonumber(redis.call('HGET', room, 'nq')) do
  local k = base .. ':a:' .. qid
  if redis.call('EXISTS', k) == 1 then keep(k) end
end
redis.call('ZADD', rooms, exp, ARGV[4])
return {'ok'}
"""

_POLL = """
local now = tonumber(ARGV[1])
if not open_room(now, true) then return err('notfound') end
local f = redis.call('HMGET', room, 'version', 'state', 'closed', 'nq', 'locked', 'renamed')
local q, truth = false, false
if tonumber(f[4]) > 0 then
  q = redis.call('HGET', base .. ':q', f[4])
  truth = redis.call('HGET', base .. ':revealed', f[4])
end
return {'ok', f[1], f[2], f[3], f[4], q, truth, f[5] or '0', redis.call('HKEYS', base .. ':removed'), f[6] or '0'}
"""

# ARGV: now, sid, max students, holder, then nickname / key pairs to try in order
_JOIN = """
local now = tonumber(ARGV[1])
if not open_room(now, false) then return err('notfound') end
if redis.call('HGET', room, 'locked') == '1' then return err('locked') end
if ARGV[4] ~= '' and redis.call('HEXISTS', base .. ':banned', ARGV[4]) == 1 then return err('banned') end
local sid, limit = ARGV[2], tonumber(ARGV[3])
local students = base .. ':students'
local n = tonumber(redis.call('HGET', room, 'ns'))
if redis.call('HLEN', students) >= limit then return err('full') end
local nicks = base .. ':nicks'
for i = 5, #ARGV, 2 do
  if redis.call('HSETNX', nicks, ARGV[i + 1], sid) == 1 then
    local seen = base .. ':seen'
    redis.call('HSET', students, sid, cjson.encode({nickname = ARGV[i], joined = ARGV[1], seq = n}))
    redis.call('HSET', seen, sid, ARGV[1])
    if ARGV[4] ~= '' then redis.call('HSET', base .. ':holders', sid, ARGV[4]); keep(base .. ':holders') end
    redis.call('HINCRBY', room, 'ns', 1)
    keep(nicks); keep(students); keep(seen)
    return {'ok', ARGV[i]}
  end
end
return err('taken')
"""

# ARGV: now, sid, holder ('' for none), 'touch' or 'claim', force ('1'/'0'), the claim's window (s)
_TOUCH = """
local now = tonumber(ARGV[1])
if not open_room(now, true) then return err('notfound') end
local sid, holder = ARGV[2], ARGV[3]
if redis.call('HEXISTS', base .. ':removed', sid) == 1 then return err('removed') end
if redis.call('HEXISTS', base .. ':students', sid) == 0 then return {'ok', 'unknown'} end
local seen = tonumber(redis.call('HGET', base .. ':seen', sid) or ARGV[1])
if holder ~= '' then
  local held = redis.call('HGET', base .. ':holders', sid)
  if held and held ~= holder then
    local age = math.max(0, now - seen)
    if ARGV[4] ~= 'claim' or (age < tonumber(ARGV[6]) and ARGV[5] ~= '1') then return {'ok', 'other', tostring(age)} end
  end
  if ARGV[4] == 'claim' then redis.call('HSET', base .. ':holders', sid, holder); keep(base .. ':holders') end
end
redis.call('HSET', base .. ':seen', sid, ARGV[1])
return {'ok', 'yes'}
"""

# ARGV: now, token hash, then the sids to remove (all or none; the questions to clear are counted from the room)
_REMOVE = """
local now = tonumber(ARGV[1])
local e = teacher(now, ARGV[2]); if e then return err(e) end
for i = 3, #ARGV do
  if not redis.call('HGET', base .. ':students', ARGV[i]) then return err('nostudent') end
end
local out = {'ok'}
local all = redis.call('HGETALL', base .. ':nicks')
for i = 3, #ARGV do
  local sid = ARGV[i]
  local st = redis.call('HGET', base .. ':students', sid)
  if st then
    table.insert(out, cjson.decode(st)['nickname'])
    for j = 1, #all, 2 do if all[j + 1] == sid then redis.call('HDEL', base .. ':nicks', all[j]) end end
    local held = redis.call('HGET', base .. ':holders', sid)
    if held then redis.call('HSET', base .. ':banned', held, sid); keep(base .. ':banned') end
    redis.call('HDEL', base .. ':students', sid)
    redis.call('HDEL', base .. ':seen', sid)
    redis.call('HDEL', base .. ':holders', sid)
    for qid = 1, tonumber(redis.call('HGET', room, 'nq')) do redis.call('HDEL', base .. ':a:' .. qid, sid) end
    redis.call('HSET', base .. ':removed', sid, ARGV[1])
    keep(base .. ':removed')
  end
end
if #ARGV > 2 then redis.call('HINCRBY', room, 'version', 1) end
return out
"""

# ARGV: now, token hash, sid, then nickname / key pairs to try in order
_RENAME = """
local now = tonumber(ARGV[1])
local e = teacher(now, ARGV[2]); if e then return err(e) end
local sid = ARGV[3]
local st = redis.call('HGET', base .. ':students', sid)
if not st then return err('nostudent') end
local d = cjson.decode(st)
local nicks = base .. ':nicks'
for i = 4, #ARGV, 2 do
  local owner = redis.call('HGET', nicks, ARGV[i + 1])
  if not owner or owner == sid then
    local all = redis.call('HGETALL', nicks)
    for j = 1, #all, 2 do if all[j + 1] == sid then redis.call('HDEL', nicks, all[j]) end end
    redis.call('HSET', nicks, ARGV[i + 1], sid)
    d['nickname'] = ARGV[i]
    redis.call('HSET', base .. ':students', sid, cjson.encode(d))
    redis.call('HINCRBY', room, 'version', 1)
    redis.call('HINCRBY', room, 'renamed', 1)
    return {'ok', ARGV[i], tostring(d['joined']), redis.call('HGET', base .. ':seen', sid) or tostring(d['joined'])}
  end
end
return err('taken')
"""

# ARGV: now, token hash, the question, the questions' limit, the state the page drew ('' for any), the id of the
# latest question it drew ('' for any)
_ASK = """
local now = tonumber(ARGV[1])
local e = teacher(now, ARGV[2]); if e then return err(e) end
local nq = tonumber(redis.call('HGET', room, 'nq'))
local last, truth = false, false
if nq > 0 then
  last = redis.call('HGET', base .. ':q', tostring(nq))
  truth = redis.call('HGET', base .. ':revealed', tostring(nq))
end
if last and not truth then return {'open', tostring(nq), last, false} end  -- one question at a time
if (ARGV[5] ~= '' and redis.call('HGET', room, 'state') ~= ARGV[5]) or (ARGV[6] ~= '' and tostring(nq) ~= ARGV[6]) then
  return {'stale', tostring(nq), last, truth}
end
if nq >= tonumber(ARGV[4]) then return err('questions') end
local qid = nq + 1
redis.call('HSET', base .. ':q', qid, ARGV[3])
redis.call('HSET', room, 'nq', qid)
redis.call('HINCRBY', room, 'version', 1)
keep(base .. ':q')
return {'ok', qid}
"""

_ANSWER = """
local now = tonumber(ARGV[1])
if not open_room(now, false) then return err('notfound') end
local sid, qid = ARGV[2], ARGV[3]
local st = redis.call('HGET', base .. ':students', sid)
if not st then
  if redis.call('HEXISTS', base .. ':removed', sid) == 1 then return err('removed') end
  return err('notstudent')
end
if not redis.call('HGET', base .. ':q', qid) then return err('noquestion') end
if redis.call('HGET', room, 'nq') ~= qid then return err('movedon') end
if redis.call('HEXISTS', base .. ':revealed', qid) == 1 then return err('revealed') end
local key = base .. ':a:' .. qid
local n = redis.call('HLEN', key)
if redis.call('HSETNX', key, sid, cjson.encode({choice = ARGV[4], at = ARGV[1], seq = n})) == 0 then
  return err('already')
end
keep(key)
return {'ok', cjson.decode(st)['nickname']}
"""

_REVEAL = """
local now = tonumber(ARGV[1])
local e = teacher(now, ARGV[2]); if e then return err(e) end
local qid = ARGV[3]
local q = redis.call('HGET', base .. ':q', qid)
if not q then return err('noquestion') end
local old = redis.call('HGET', base .. ':revealed', qid)
if old and ARGV[6] == '1' then return {'revealed', q, old} end  -- the page showed it open: another device revealed it
if old then return {'ok', q, old} end
redis.call('HSET', base .. ':revealed', qid, ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', room, 'state', ARGV[5], 'state_at', ARGV[1]) end  -- the class moves with it
redis.call('HINCRBY', room, 'version', 1)
keep(base .. ':revealed')
return {'ok', q, ARGV[4]}
"""

_ERRORS = {
    "notfound": (RoomNotFound, "there is no open class with the code {code}"),
    "notteacher": (NotTeacher, "only the teacher of this room can do that"),
    "rooms": (LimitReached, "this server holds {rooms:,} classes already; try again later"),
    "full": (LimitReached, "this class is full ({students:,} students)"),
    "questions": (LimitReached, "a class can ask {questions:,} questions"),
    "notstudent": (BadInput, "this page is not a student of the class: join it again with the code"),
    "nostudent": (BadInput, "there is no such student in this class"),
    "locked": (Locked, "the teacher has locked this class: no new students can join"),
    "removed": (Removed, "the teacher has removed you from this class"),
    "banned": (Removed, REMOVED_BROWSER),
    "owner": (LimitReached, "{owner} classes are open from this address already: end one first"),
    "noquestion": (AnswerRefused, "there is no such question"),
    "movedon": (AnswerRefused, "the teacher has moved on to another question"),
    "revealed": (AnswerRefused, "the answer was revealed already"),
    "already": (AnswerRefused, "you have answered this question already"),
}


class RedisStore(ClassroomStore):
    """The store in the Redis server at ``url``; ``prefix`` starts every key (tests use their own)."""

    def __init__(self, url, limits=None, prefix="cae", connect_timeout=2.0, timeout=5.0):
        try:
            import redis
        except ImportError:  # pragma: no cover - redis-py is a dependency
            raise StoreUnavailable("redis-py is not installed: pip install redis") from None
        self._redis_mod = redis
        self.url = url
        self.limits = limits or Limits()
        self.prefix = str(prefix)
        self.client = redis.Redis.from_url(
            url,
            decode_responses=True,
            socket_connect_timeout=connect_timeout,
            socket_timeout=timeout,
            health_check_interval=30,
        )
        self._scripts = {}
        self._lock = threading.Lock()

    def __repr__(self):
        return f"RedisStore({self._host!r}, prefix={self.prefix!r})"

    @property
    def _host(self):
        return self.url.split("@")[-1]  # never show a password

    @property
    def location(self):
        """Where the class is kept, for the teacher's page (students are never shown hosts or ports)."""
        return f"Redis at {self._host.split('://')[-1]} (keys {self.prefix}:…)"

    def epoch(self):
        """The store's identity (``PREFIX:epoch``, made by the first process that asks): a Redis that came
        back empty makes a new one, so a class made before is known to be lost, not ended."""
        key = f"{self.prefix}:epoch"
        self._call(self.client.set, key, new_secret(12), nx=True)
        return self._call(self.client.get, key)

    def _unavailable(self, exc):
        """The failure in words: a server that answers but refuses writes (a read-only replica, a full memory, a
        disk it cannot save to) is not one that cannot be reached."""
        refused = _refused_writes(exc)
        if refused is not None:
            return StoreUnavailable(
                f"the class's store cannot be written: {refused}",
                f"the classroom server ({self.location}) refuses writes: {_words(exc)}",
            )
        return StoreUnavailable(
            "the class's store (its server) cannot be reached right now",
            f"the classroom server ({self.location}) cannot be used: {_words(exc)}",
        )

    def check_writable(self):
        """StoreUnavailable, in words, unless a write would be tried now: one small write (a key that expires)."""
        self._call(self.client.set, f"{self.prefix}:writable", repr(time.time()), ex=60)

    # ------------------------------------------------------------ plumbing
    def _key(self, code, part="room"):
        return f"{self.prefix}:{{{code}}}:{part}"

    @property
    def _rooms_key(self):
        return f"{self.prefix}:rooms"

    def _run(self, name, body, keys, args, code=""):
        with self._lock:
            script = self._scripts.get(name)
            if script is None:
                script = self._scripts[name] = self.client.register_script(_COMMON + body)
        try:
            out = script(keys=keys, args=[str(a) for a in args])
        except self._redis_mod.exceptions.RedisError as exc:
            raise self._unavailable(exc) from None
        if out and out[0] == "err":
            cls, text = _ERRORS[out[1]]
            lim = self.limits
            raise cls(
                text.format(
                    code=code,
                    rooms=lim.rooms,
                    students=lim.students_per_room,
                    questions=lim.questions_per_room,
                    owner=lim.rooms_per_client,
                )
            )
        return out

    def _call(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except self._redis_mod.exceptions.RedisError as exc:
            raise self._unavailable(exc) from None

    @staticmethod
    def _now(now):
        return time.time() if now is None else float(now)

    # ------------------------------------------------------------ rooms
    def _owner_key(self, owner):
        return f"{self.prefix}:owner:{owner}"

    def create_room(self, now=None, owner=None):
        now = self._now(now)
        token = new_secret()
        owner = "" if owner is None else str(owner)
        for _ in range(50):
            code = new_room_code()
            try:
                self._run(
                    "create",
                    _CREATE,
                    [self._key(code), self._rooms_key, self._owner_key(owner)],
                    [
                        repr(now),
                        code,
                        token_hash(token),
                        repr(now + self.limits.ttl_seconds),
                        self.limits.rooms,
                        owner,
                        self.limits.rooms_per_client,
                    ],
                    code,
                )
                return code, token
            except LimitReached:
                raise
            except _Taken:  # pragma: no cover - 64 million codes
                continue
        raise LimitReached("no free room code was found; try again")  # pragma: no cover

    def _fields(self, code):
        f = self._call(self.client.hgetall, self._key(code))
        return f

    def room(self, code, now=None):
        code = normalize_code(code)
        now = self._now(now)
        f = self._fields(code)
        if not f or float(f["expires"]) <= now or f["closed"] == "1":
            raise RoomNotFound(f"there is no open class with the code {code}")
        return Room(
            code,
            float(f["created"]),
            float(f["expires"]),
            f["closed"] == "1",
            int(f["version"]),
            json.loads(f["state"]),
            float(f["state_at"]),
            int(f["nq"]),
            f.get("locked") == "1",
        )

    def is_teacher(self, code, token, now=None):
        code = normalize_code(code)
        self.room(code, now)
        return token_matches(token, self._call(self.client.hget, self._key(code), "token_hash"))

    def rotate_token(self, code, token, now=None):
        code = normalize_code(code)
        new = new_secret()
        self._run(
            "rotate", _ROTATE, [self._key(code)], [repr(self._now(now)), token_hash(token), token_hash(new)], code
        )
        return new

    def lock(self, code, token, locked=True, now=None):
        code = normalize_code(code)
        args = [repr(self._now(now)), token_hash(token), "1" if locked else "0"]
        self._run("lock", _LOCK, [self._key(code)], args, code)

    def allow(self, bucket, limit, window, now=None, count=True):
        key = f"{self.prefix}:rate:{bucket}"
        if not count:
            n = self._call(self.client.get, key)
            return n is None or int(n) < int(limit)
        # a fixed window: the counter expires with it (``now`` is the clock's; Redis keeps the time)
        out = self._run("allow", _ALLOW, [key], [int(limit), max(1, int(window))])
        return out[1] == 1

    def close(self, code, token, now=None):
        code = normalize_code(code)
        now = self._now(now)
        owner = self._call(self.client.hget, self._key(code), "owner") or ""
        self._run(
            "close",
            _CLOSE,
            [self._key(code), self._rooms_key] + ([self._owner_key(owner)] if owner else []),
            [repr(now), token_hash(token), CLOSED_GRACE, code],
            code,
        )

    def purge(self, now=None):
        now = self._now(now)
        gone = self._call(self.client.zrangebyscore, self._rooms_key, "-inf", now)
        for code in gone:
            nq = self._call(self.client.hget, self._key(code), "nq")
            parts = ["room", "students", "seen", "nicks", "q", "revealed", "holders", "removed", "banned"]
            parts += [f"a:{q}" for q in range(1, int(nq or 0) + 1)]
            pipe = self.client.pipeline(transaction=True)
            pipe.delete(*[self._key(code, p) for p in parts])
            pipe.zrem(self._rooms_key, code)
            self._call(pipe.execute)
        return len(gone)

    # ------------------------------------------------------------ the teacher's view
    def publish(self, code, token, state, now=None, expect=None):
        code = normalize_code(code)
        text = state_json(state, self.limits)
        want = "" if expect is None else state_json(expect, self.limits)
        args = [repr(self._now(now)), token_hash(token), text, want]
        out = self._run("publish", _PUBLISH, [self._key(code)], args, code)
        if out[0] == "conflict":
            raise Conflict(MOVED_ON, json.loads(out[1]))
        return int(out[1])

    def poll(self, code, now=None):
        code = normalize_code(code)
        out = self._run("poll", _POLL, [self._key(code)], [repr(self._now(now))], code)
        _, version, state, closed, nq, q, truth, locked, removed, renamed = out
        question = _question(int(nq), q, truth) if q else None
        return Poll(
            int(version), json.loads(state), question, closed == "1", locked == "1", frozenset(removed), int(renamed)
        )

    # ------------------------------------------------------------ students
    def _candidates(self, name):
        """Batches of nickname candidates (the name, then "name 2", "name 3"…) and their keys, 16 at a time."""
        lim = self.limits.nickname_length
        taken = set()
        for _ in range(100):
            batch = []
            while len(batch) < 32:
                c = unique_nickname(name, taken, lim)
                taken.add(nickname_key(c))
                batch += [c, nickname_key(c)]
            yield batch

    def join(self, code, nickname, now=None, holder=None):
        code = normalize_code(code)
        now = self._now(now)
        name = clean_nickname(nickname, self.limits.nickname_length)
        sid = new_secret(16)
        for batch in self._candidates(name):
            args = [repr(now), sid, self.limits.students_per_room, "" if holder is None else str(holder), *batch]
            try:
                out = self._run("join", _JOIN, [self._key(code)], args, code)
            except _Taken:
                continue
            return Student(sid, out[1], now, now)
        raise LimitReached("too many students share this nickname; choose another")  # pragma: no cover

    def claim(self, code, sid, holder, force=False, now=None):
        code = normalize_code(code)
        args = [repr(self._now(now)), str(sid), str(holder), "claim", "1" if force else "0", CLAIM_SECONDS]
        out = self._run("touch", _TOUCH, [self._key(code)], args, code)
        if out[1] == "unknown":
            raise BadInput("this student link is not known in that class any more: join again with a nickname")
        return Claim(True) if out[1] == "yes" else Claim(False, float(out[2]))

    def remove_students(self, code, token, sids, now=None):
        code = normalize_code(code)
        args = [repr(self._now(now)), token_hash(token), *dict.fromkeys(str(sid) for sid in sids)]
        return list(self._run("remove", _REMOVE, [self._key(code)], args, code)[1:])

    def rename_student(self, code, token, sid, nickname, now=None):
        code = normalize_code(code)
        name = clean_nickname(nickname, self.limits.nickname_length)
        for batch in self._candidates(name):
            args = [repr(self._now(now)), token_hash(token), str(sid), *batch]
            try:
                out = self._run("rename", _RENAME, [self._key(code)], args, code)
            except _Taken:
                continue
            return Student(str(sid), out[1], float(out[2]), float(out[3]))
        raise LimitReached("too many students share this nickname; choose another")  # pragma: no cover

    def student(self, code, sid):
        code = normalize_code(code)
        raw = self._call(self.client.hget, self._key(code, "students"), str(sid))
        if raw is None:
            return None
        d = json.loads(raw)
        seen = self._call(self.client.hget, self._key(code, "seen"), str(sid))
        return Student(str(sid), d["nickname"], float(d["joined"]), float(seen or d["joined"]))

    def touch(self, code, sid, now=None, holder=None):
        code = normalize_code(code)
        args = [repr(self._now(now)), str(sid), "" if holder is None else str(holder), "touch", "0", CLAIM_SECONDS]
        out = self._run("touch", _TOUCH, [self._key(code)], args, code)
        if out[1] == "unknown":
            return None
        return Claim(True) if out[1] == "yes" else Claim(False, float(out[2]))

    def students(self, code):
        code = normalize_code(code)
        pipe = self.client.pipeline(transaction=True)
        pipe.hgetall(self._key(code, "students"))
        pipe.hgetall(self._key(code, "seen"))
        raw, seen = self._call(pipe.execute)
        rows = []
        for sid, v in raw.items():
            d = json.loads(v)
            rows.append(
                (int(d["seq"]), Student(sid, d["nickname"], float(d["joined"]), float(seen.get(sid, d["joined"]))))
            )
        return [s for _, s in sorted(rows, key=lambda r: r[0])]

    # ------------------------------------------------------------ questions and answers
    def ask(self, code, token, step, state, kind="predict", now=None, expect=None, last=None):
        code = normalize_code(code)
        now = self._now(now)
        text = state_json(state, self.limits)
        step = int(step)
        if step < 1:
            raise BadInput("a question is about step 1 or later")
        body = json.dumps({"step": step, "state": text, "opened": now, "kind": str(kind)})
        args = [
            repr(now),
            token_hash(token),
            body,
            self.limits.questions_per_room,
            "" if expect is None else state_json(expect, self.limits),
            "" if last is None else int(last),
        ]
        out = self._run("ask", _ASK, [self._key(code)], args, code)
        if out[0] in ("open", "stale"):
            last = _question(int(out[1]), out[2], out[3]) if out[2] else None
            if out[0] == "open":
                raise QuestionOpen(question_open(last), last)
            raise Stale(changed_since(last), last)
        return Question(int(out[1]), step, json.loads(text), now, False, None, str(kind))

    def answer(self, code, sid, qid, choice, now=None):
        code = normalize_code(code)
        now = self._now(now)
        choice = check_choice(choice)
        out = self._run("answer", _ANSWER, [self._key(code)], [repr(now), str(sid), int(qid), json.dumps(choice)], code)
        return Answer(int(qid), str(sid), out[1], choice, now)

    def reveal(self, code, token, qid, truth, now=None, state=None, seen_open=False):
        code = normalize_code(code)
        truth = check_choice(truth)
        text = "" if state is None else state_json(state, self.limits)
        args = [repr(self._now(now)), token_hash(token), int(qid), json.dumps(truth), text, int(bool(seen_open))]
        try:
            out = self._run("reveal", _REVEAL, [self._key(code)], args, code)
        except AnswerRefused:
            raise BadInput("there is no such question") from None
        if out[0] == "revealed":
            q = _question(int(qid), out[1], out[2])
            raise Stale(revealed_already(q), q)
        return _question(int(qid), out[1], out[2])

    def questions(self, code):
        code = normalize_code(code)
        pipe = self.client.pipeline(transaction=True)
        pipe.hgetall(self._key(code, "q"))
        pipe.hgetall(self._key(code, "revealed"))
        qs, rev = self._call(pipe.execute)
        return [_question(int(k), v, rev.get(k)) for k, v in sorted(qs.items(), key=lambda kv: int(kv[0]))]

    def answers(self, code, qid=None):
        code = normalize_code(code)
        if qid is None:
            nq = int(self._call(self.client.hget, self._key(code), "nq") or 0)
            qids = range(1, nq + 1)
        else:
            qids = [int(qid)]
        pipe = self.client.pipeline(transaction=True)
        pipe.hgetall(self._key(code, "students"))
        for q in qids:
            pipe.hgetall(self._key(code, f"a:{q}"))
        res = self._call(pipe.execute)
        names = {sid: json.loads(v)["nickname"] for sid, v in res[0].items()}
        out = []
        for q, raw in zip(qids, res[1:]):
            rows = []
            for sid, v in raw.items():
                d = json.loads(v)
                rows.append(
                    (int(d["seq"]), Answer(q, sid, names.get(sid, "?"), tuple(json.loads(d["choice"])), float(d["at"])))
                )
            out += [a for _, a in sorted(rows, key=lambda r: r[0])]
        return out


class _Taken(Exception):
    pass


_ERRORS["taken"] = (_Taken, "taken")


def _question(qid, raw, truth):
    d = json.loads(raw)
    return Question(
        qid=int(qid),
        step=int(d["step"]),
        state=json.loads(d["state"]),
        opened=float(d["opened"]),
        revealed=truth is not None and truth is not False,
        truth=tuple(json.loads(truth)) if truth else None,
        kind=d.get("kind", "predict"),
    )


def _words(exc):
    text = str(exc) or type(exc).__name__
    return text.split("\n")[0][:200]


#: the errors of a Redis that answers but refuses writes, by the word its error starts with (redis-py turns the
#: first two into classes of their own, whose message no longer starts with it)
_REFUSED_WRITES = {
    "READONLY": "its server is a read-only replica",
    "OOM": "its server's memory is full",
    "MISCONF": "its server cannot save to its disk",
    "NOREPLICAS": "its server has too few replicas to write",
}
_REFUSED_CLASSES = {"ReadOnlyError": "READONLY", "OutOfMemoryError": "OOM"}


def _refused_writes(exc):
    """Why a Redis refused a write, in words (None when the error is another one: a server not reached).

    >>> _refused_writes(Exception("MISCONF Redis is configured to save RDB snapshots, but it's currently unable"))
    'its server cannot save to its disk'
    >>> from redis.exceptions import ConnectionError, ReadOnlyError
    >>> _refused_writes(ReadOnlyError("You can't write against a read only replica."))
    'its server is a read-only replica'
    >>> _refused_writes(ConnectionError("Error 111 connecting")) is None
    True
    """
    word = _REFUSED_CLASSES.get(type(exc).__name__) or str(exc).split(" ", 1)[0]
    return _REFUSED_WRITES.get(word)
