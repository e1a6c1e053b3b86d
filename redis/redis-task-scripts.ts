// The Lua scripts that keep task records on Redis (the add-on `mcp-core/redis`, run by RedisTaskStore in
// redis-tasks.ts): each transition, listing, message and lease renewal is one script, so processes sharing the store
// never see half a change; the byte and per-owner bounds are kept inside them (docs/tasks.md, The store). Holds only
// script text and the key layout it implies; never runs a command itself, and the core never imports it.

import { INTERNAL_ERROR } from '../jsonrpc.ts';
import { RECORD_BYTES, TASK_TRANSITIONS } from '../tasks/task-store.ts';

/** What a record whose process stopped holds: `failed`, with the generic internal error. */
export const LOST_BODY = JSON.stringify({
  statusMessage: 'The process running the task stopped',
  error: INTERNAL_ERROR,
});

/**
 * What every script starts with, over the key prefix P: the transitions (TASK_TRANSITIONS, the one definition),
 * Redis's clock, `weight` (what a record weighs in the sums, 0 when none) and `weigh` (sets it), `write`, which stores
 * a record's status, TTL and body and, once it is terminal, keeps it only the `retention` more unless a TTL was asked
 * for (its keys expire with it) and lists it in `tasks-done` for eviction, and `read`, which returns a record's fields
 * (owner, status, createdMs, updatedMs, ttlMs, poll, body) after failing a live one whose lease lapsed (a `write`, so a
 * record whose process stopped is finished like any other).
 */
const PRELUDE = `
local ALLOWED = cjson.decode('${JSON.stringify(TASK_TRANSITIONS)}')
local RECORD_BYTES = ${RECORD_BYTES}
local function int(x) return string.format('%d', x) end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function live(status) return ALLOWED[status] ~= nil and #ALLOWED[status] > 0 end
local function allowed(from, to)
  for _, status in ipairs(ALLOWED[from] or {}) do if status == to then return true end end
  return false
end
local function extend(key, at, now)
  local left = redis.call('PTTL', key)
  if left < at - now then redis.call('PEXPIREAT', key, int(at)) end
end
local function weight(P, id)
  local entry = redis.call('HGET', P .. 'tasks-acct', id)
  if not entry then return 0 end
  return tonumber(string.sub(entry, 1, string.find(entry, ' ', 1, true) - 1))
end
local function weigh(P, id, owner, bytes, delta, expires, now)
  local acct = P .. 'tasks-acct'
  redis.call('HSET', acct, id, int(bytes) .. ' ' .. owner)
  redis.call('HINCRBY', acct, '#bytes', delta)
  redis.call('HINCRBY', acct, 'b:' .. owner, delta)
  extend(acct, expires, now)
end
-- r: the record's fields (read), updated here; ttl: its TTL from now on, before the retention cuts it.
local function write(P, id, r, status, at, ttl, body, retention, now)
  local key = P .. 'task:' .. id
  if not live(status) and redis.call('HGET', key, 'req') ~= '1' then
    ttl = int(math.min(tonumber(ttl), tonumber(at) - tonumber(r[3]) + tonumber(retention)))
  end
  redis.call('HSET', key, 'status', status, 'updatedMs', at, 'ttlMs', ttl, 'body', body)
  local expires = tonumber(r[3]) + tonumber(ttl)
  if ttl ~= r[5] then
    redis.call('ZADD', P .. 'tasks', int(expires), id)
    extend(P .. 'tasks', expires, now)
    extend(P .. 'tasks-of:' .. r[1], expires, now)
    local inbox = P .. 'task-inbox:' .. id
    if redis.call('EXISTS', inbox) == 1 then redis.call('PEXPIREAT', inbox, int(expires)) end
    redis.call('PEXPIREAT', key, int(expires))
  end
  local bytes = RECORD_BYTES + #r[1] + #body
  weigh(P, id, r[1], bytes, bytes - weight(P, id), expires, now)
  if not live(status) then
    redis.call('ZADD', P .. 'tasks-done', r[3], id)
    extend(P .. 'tasks-done', expires, now)
  end
  r[2] = status r[4] = at r[5] = ttl r[7] = body
end
local function read(P, id, lost, retention)
  local key = P .. 'task:' .. id
  local r = redis.call('HMGET', key, 'owner', 'status', 'createdMs', 'updatedMs', 'ttlMs', 'poll', 'body')
  if not r[1] then return nil end
  if live(r[2]) and redis.call('EXISTS', P .. 'task-lease:' .. id) == 0 then
    local now = now_ms()
    write(P, id, r, 'failed', int(math.max(now, tonumber(r[4]) + 1)), r[5], lost, retention, now)
  end
  return r
end
`;

/**
 * What the scripts that add or drop weight start with (after PRELUDE), over the key prefix P and the bounds L
 * (`tasks`, `perOwner`, `bytes`, `bytesPerOwner`): `forget` takes a record's weight off the sums, `evict` removes a
 * record and everything of it, `prune` evicts the records whose expiry time `now` has reached, `over` names the
 * first bound `count` more records and `bytes` more bytes of `owner` would pass, and `room` evicts terminal records
 * until none is passed (the owner's own first, in creation order, while its share is what is full, each `read` first
 * so that one whose lease lapsed counts as the failed record it is; then anyone's, oldest first), returning the bound
 * still passed, if any. A record whose whole weight (`size`) is larger than a bound by itself evicts nothing: no
 * eviction could make it fit.
 */
const ACCOUNTS = `
local function forget(P, id)
  local acct = P .. 'tasks-acct'
  local entry = redis.call('HGET', acct, id)
  if not entry then return end
  local space = string.find(entry, ' ', 1, true)
  local bytes = tonumber(string.sub(entry, 1, space - 1))
  local owner = string.sub(entry, space + 1)
  redis.call('HDEL', acct, id)
  redis.call('HINCRBY', acct, '#bytes', -bytes)
  redis.call('HINCRBY', acct, 'b:' .. owner, -bytes)
  if redis.call('HINCRBY', acct, 'n:' .. owner, -1) <= 0 then redis.call('HDEL', acct, 'n:' .. owner, 'b:' .. owner) end
end
local function evict(P, id)
  local owner = redis.call('HGET', P .. 'task:' .. id, 'owner')
  redis.call('DEL', P .. 'task:' .. id, P .. 'task-lease:' .. id, P .. 'task-inbox:' .. id)
  redis.call('ZREM', P .. 'tasks', id)
  redis.call('ZREM', P .. 'tasks-done', id)
  if owner then redis.call('ZREM', P .. 'tasks-of:' .. owner, id) end
  forget(P, id)
end
-- A record at its expiry time may not have expired yet in Redis's own view of the time: it goes with its weight.
local function prune(P, now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', P .. 'tasks', '-inf', now)) do evict(P, id) end
end
local function used(P, field) return tonumber(redis.call('HGET', P .. 'tasks-acct', field) or '0') end
local function over(P, L, owner, count, bytes)
  if used(P, 'n:' .. owner) + count > L.perOwner then return 'maxTasksPerOwner' end
  if used(P, 'b:' .. owner) + bytes > L.bytesPerOwner then return 'maxTaskBytesPerOwner' end
  if redis.call('ZCARD', P .. 'tasks') + count > L.tasks then return 'maxTasks' end
  if used(P, '#bytes') + bytes > L.bytes then return 'maxTaskBytes' end
  return nil
end
local function own(full) return full ~= nil and string.sub(full, -8) == 'PerOwner' end
local function room(P, L, owner, count, bytes, size, lost, retention)
  local full = over(P, L, owner, count, bytes)
  if not full or size > L.bytesPerOwner or size > L.bytes then return full end
  if own(full) then
    for _, id in ipairs(redis.call('ZRANGE', P .. 'tasks-of:' .. owner, 0, -1)) do
      local r = read(P, id, lost, retention)
      if r and not live(r[2]) then
        evict(P, id)
        full = over(P, L, owner, count, bytes)
        if not own(full) then break end
      end
    end
  end
  while full and not own(full) do
    local id = redis.call('ZRANGE', P .. 'tasks-done', 0, 0)[1]
    if not id then break end
    evict(P, id)
    full = over(P, L, owner, count, bytes)
  end
  return full
end
`;

/**
 * Creates a record `working`, with this process's lease: KEYS the record, the lease, the cap set, the sequence, the
 * owner's index; ARGV the id, owner, TTL, polling interval, process id, lease TTL, the bounds (cjson: ACCOUNTS), longest
 * TTL, the key prefix, '1' when the TTL was asked for, the lost body, the retention. The expired records are forgotten
 * first, and terminal ones evicted while a bound would be passed (ACCOUNTS `room`); the oldest PRUNED ids of the
 * owner's index whose records are gone leave it (tasks/list prunes the rest). Returns the creation time in ms, the
 * name of the bound passed, or -2 when the id exists.
 */
export const CREATE_TASK = `${PRELUDE}${ACCOUNTS}
local PRUNED = 16
local now = now_ms()
local P = ARGV[9]
prune(P, now)
if redis.call('EXISTS', KEYS[1]) == 1 then return -2 end
local bytes = RECORD_BYTES + #ARGV[2] + 2
local full = room(P, cjson.decode(ARGV[7]), ARGV[2], 1, bytes, bytes, ARGV[11], ARGV[12])
if full then return full end
local expires = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'status', 'working', 'createdMs', int(now), 'updatedMs', int(now),
  'ttlMs', ARGV[3], 'poll', ARGV[4], 'body', '{}', 'req', ARGV[10])
redis.call('PEXPIREAT', KEYS[1], int(expires))
redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[6])
redis.call('ZADD', KEYS[3], int(expires), ARGV[1])
extend(KEYS[3], expires, now)
redis.call('HINCRBY', P .. 'tasks-acct', 'n:' .. ARGV[2], 1)
weigh(P, ARGV[1], ARGV[2], bytes, bytes, expires, now)
for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, PRUNED - 1)) do
  if redis.call('EXISTS', P .. 'task:' .. id) == 0 then redis.call('ZREM', KEYS[5], id) end
end
redis.call('ZADD', KEYS[5], redis.call('INCR', KEYS[4]), ARGV[1])
redis.call('PEXPIRE', KEYS[4], ARGV[8])
extend(KEYS[5], expires, now)
return now`;

/**
 * Reads a record (failing it when its lease lapsed: PRELUDE `read`): ARGV the key prefix, the id, the lost body, the
 * retention.
 */
export const GET_TASK = `${PRELUDE}
return read(ARGV[1], ARGV[2], ARGV[3], ARGV[4]) or false`;

/**
 * One transition, unless TASK_TRANSITIONS forbids it: KEYS the record, the lease; ARGV the
 * status, the body, the new TTL or '', this process, the channel prefix, the id, the lost body, the key prefix, the
 * bounds (cjson: ACCOUNTS), the retention, then the bodies of the failure that replaces a change past
 * maxTaskBytesPerOwner and past maxTaskBytes. A body that passes a byte bound even once terminal records are evicted
 * is stored as that failure; a record that becomes terminal is finished as PRELUDE `write` says; a
 * terminal status drops the lease and tells the process that held it (when another). Returns the record's fields.
 */
export const UPDATE_TASK = `${PRELUDE}${ACCOUNTS}
local P = ARGV[8]
prune(P, now_ms()) -- first: the record written is never one whose weight was just forgotten
local r = read(P, ARGV[6], ARGV[7], ARGV[10])
if not r or not allowed(r[2], ARGV[1]) then return false end
local now = now_ms()
local status, body = ARGV[1], ARGV[2]
local bytes = RECORD_BYTES + #r[1] + #body
local full = room(P, cjson.decode(ARGV[9]), r[1], 0, bytes - weight(P, ARGV[6]), bytes, ARGV[7], ARGV[10])
if full then
  status = 'failed'
  if full == 'maxTaskBytes' then body = ARGV[12] else body = ARGV[11] end
end
local ttl = r[5]
if ARGV[3] ~= '' then
  ttl = ARGV[3]
  redis.call('HSET', KEYS[1], 'req', '1')
end
write(P, ARGV[6], r, status, int(math.max(now, tonumber(r[4]) + 1)), ttl, body, ARGV[10], now)
if not live(status) then
  local holder = redis.call('GET', KEYS[2])
  redis.call('DEL', KEYS[2])
  if holder and holder ~= ARGV[4] then redis.call('PUBLISH', ARGV[5] .. holder, ARGV[6]) end
end
return r`;

/**
 * One page of an owner's records after a sequence number: KEYS the owner's index; ARGV the sequence, the page size,
 * the key prefix, the lost body, the retention. Ids whose record is gone leave the index. Returns up to one more than
 * a page, each the record's fields, then its id and sequence number.
 */
export const LIST_TASKS = `${PRELUDE}
local out = {}
local after = '(' .. ARGV[1]
local want = tonumber(ARGV[2]) + 1
while #out < want do
  local batch = redis.call('ZRANGEBYSCORE', KEYS[1], after, '+inf', 'WITHSCORES', 'LIMIT', 0, want)
  if #batch == 0 then break end
  for i = 1, #batch, 2 do
    local id = batch[i]
    after = '(' .. batch[i + 1]
    local r = read(ARGV[3], id, ARGV[4], ARGV[5])
    if r then
      r[8] = id r[9] = batch[i + 1]
      out[#out + 1] = r
      if #out == want then break end
    else
      redis.call('ZREM', KEYS[1], id)
    end
  end
end
return out`;

/**
 * Removes a record and its weight (ACCOUNTS `evict`): KEYS the record, the lease; ARGV the id, the key prefix, the
 * channel prefix, this process. Tells the process that held the lease (when another). Returns 1, or 0 if none.
 */
export const DELETE_TASK = `${PRELUDE}${ACCOUNTS}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local holder = redis.call('GET', KEYS[2])
evict(ARGV[2], ARGV[1])
if holder and holder ~= ARGV[4] then redis.call('PUBLISH', ARGV[3] .. holder, ARGV[1]) end
return 1`;

/**
 * Queues a message for the process that runs a task and tells it: KEYS the lease, the inbox, the record; ARGV the
 * message, the queue's bound, the channel prefix, the id, the lost body, the key prefix, the retention. A live task
 * whose lease lapsed is failed (as a read would): nobody is left to answer. Returns 1, 0 when no process runs the task, -1 when full.
 */
export const SEND_TASK = `${PRELUDE}
local r = read(ARGV[6], ARGV[4], ARGV[5], ARGV[7])
local holder = redis.call('GET', KEYS[1])
local left = redis.call('PTTL', KEYS[3])
if not r or not live(r[2]) or not holder or left <= 0 then return 0 end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[2]) then return -1 end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], left)
redis.call('PUBLISH', ARGV[3] .. holder, ARGV[4])
return 1`;

/**
 * Reads a task's queued messages: KEYS the inbox, the record. Returns its status ('' when gone) and the messages;
 * they leave the queue once delivered (LTRIM), so a reply lost on the way leaves them for the next drain.
 */
export const DRAIN_TASK = `
return { redis.call('HGET', KEYS[2], 'status') or '', redis.call('LRANGE', KEYS[1], 0, -1) }`;

/**
 * Renews this process's leases: ARGV the key prefix, this process, the lease TTL, the lost body, the retention, then
 * the ids. A lease that lapsed is not taken back: its task reads failed from then on, wherever it is read (a message
 * sent meanwhile found no process to reach). Returns per id `held`, `mail` (held, with messages queued) or `ended`
 * (terminal, gone, lapsed, or held by another process).
 */
export const RENEW_LEASES = `${PRELUDE}
local out = {}
for i = 6, #ARGV do
  local id = ARGV[i]
  local lease = ARGV[1] .. 'task-lease:' .. id
  local r = read(ARGV[1], id, ARGV[4], ARGV[5])
  local state = 'ended'
  if r and live(r[2]) then
    if redis.call('GET', lease) == ARGV[2] then
      redis.call('SET', lease, ARGV[2], 'PX', ARGV[3])
      state = 'held'
      if redis.call('EXISTS', ARGV[1] .. 'task-inbox:' .. id) == 1 then state = 'mail' end
    end
  end
  out[#out + 1] = state
end
return out`;
