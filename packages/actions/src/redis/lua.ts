/**
 * Lua run inside Redis, so that each operation is atomic: Redis runs one script at a time, which is
 * what makes "a one-off action is delivered by exactly one pull" hold across any number of store
 * instances without locks.
 *
 * Keys of one app (base = `<prefix>{<app_id>}:`; the hash tag keeps an app in one cluster slot):
 *   base..'seq'                          INCR: creation order, the score of every index entry
 *   base..'ids'                          INCRBY: generated inv_id/action_id numbers
 *   base..'a:'..rid                      HASH: one action (rid = inv:action:user)
 *       u m t r   user, delivery_mode, type, render_method
 *       e         expiry epoch ms, '' = never        s   score (seq)
 *       st        a(vailable) d(elivered) x (expired) w(ithdrawn by block)
 *       av        attrs as a JSON array [k1,v1,k2,v2,...]   '@'..k   attr value, for matching
 *       i c       inv_id, action_id                 'f:'..response   feedback seen (dedup)
 *       v         available_at epoch ms, only when it was after the creation
 *       l         the action's log value (action-log.ts): '<created ms>|<e>|<m>|<t>|<r>', ready
 *                 for its later log entries
 *   base..'j:'..rid                      STRING the pull entry as JSON, while available; separate
 *                                        from the hash so a pull fetches 1,000 with one MGET. A cached
 *                                        action no pull returned yet has it behind a space (JSON.stringify
 *                                        never writes one; JSON.parse skips it, so a store that does
 *                                        not know the mark still reads it): its first pull logs the
 *                                        delivery and drops the mark; later pulls see it at no cost
 *   base..'u:'..dim..':'..user           ZSET rid by seq: available actions of one user
 *   base..'all:'..dim                    ZSET rid by seq: available actions of all users
 *   base..'x:'..dim..':'..#k..':'..k..':'..v   ZSET rid by seq: available, with attr k=v
 *   base..'exp'                          ZSET rid by expiry: available actions that expire
 *   base..'pd:'..dim                     ZSET rid by available_at: indexed actions created with a later
 *   base..'pu:'..dim..':'..user          available_at, app-wide and per user; trimmed by each pull, and
 *                                        while not empty that pull checks each entry's 'v'
 *   base..'cc:'..#user..':'..user..':'..key   ZSET '<rid>@<ms>' by creation ms: the campaign cap's
 *                                        counter (caps.campaign.key), trimmed to its window, PEXPIRE window
 *   base..'ac:'..user                    ZSET the same for the app cap (actions with caps.app), one day
 *   base..'st:'..action_id               HASH counters (created, delivered, expired, r:<response>),
 *                                        and per invocation '<inv_id>|<counter>'
 *   base..'blk:'..user                   SET action_ids the user blocked (SREM by unblock); PEXPIRE
 *                                        blockTtl from the user's last block
 *   base..'le:'..action_id               HASH user -> JSON of that user's latest `error` report
 *   base..'lz:'..action_id               ZSET user by 'les' sequence: recency of the reports above,
 *                                        trimmed to the newest MAX_LAST_ERRORS users; both PEXPIRE
 *                                        retention from the latest report (a person's report
 *                                        outlives no retired action)
 *   base..'ix:'..user                    ZSET the user's index, what an erasure deletes (no SCAN): member
 *                                        'a:'..rid, 'cc:'.., 'ac:'..user, 'blk:'..user (keys of the
 *                                        user) and 'le:'..act (the user's report in a shared hash), each
 *                                        scored by when it expires ('inf' = never); the set expires with
 *                                        its last member (persistent while one is)
 * Every key naming a user, or holding a user's data, either expires or is emptied (and so deleted)
 * when the actions it indexes are retired; docs/actions.md, "Redis data model".
 *   base..'les'                          INCR: order of error reports (no ties, unlike the clock)
 *   base..'log'                          STREAM the action log's outbox (action-log.ts): one entry per
 *                                        step kind of a script call, appended in that script; read by
 *                                        the relay through the consumer group 'relay', XACK+XDEL
 * with dim = delivery_mode..':'..type..':'..render_method. A single-user pull reads one small zset;
 * a `*` pull reads the app's zset for that dim, or the smallest attr zset when attrs narrow it.
 * When nothing expired is waiting to be swept and the scanned zset implies every filter, a pull is
 * one ZRANGEBYSCORE plus one MGET: O(log n + returned).
 */

const COMMON = `
local function xkey(base, dim, k, v)
  return base .. 'x:' .. dim .. ':' .. #k .. ':' .. k .. ':' .. v
end

-- The action log's outbox (action-log.ts). A script collects the steps of one kind in a record
-- (newLog: the header, then rid, value pairs) and appends it to the app's stream (flushLog) before
-- it returns, so no step is ever without its entry. logValue(f) is a step's value from what
-- unindex returns.
local function logValue(f)
  return f[9]
end

local function newLog(kind, now, source)
  if source then return { 'k', kind, 't', now, 's', source } end
  return { 'k', kind, 't', now }
end

-- One stream entry per LOG_RECORD_MAX_ENTRIES steps; none when there were none. (A rid starts with
-- a digit, so rec[5] is 's' only in a header with a source.)
local function flushLog(base, rec)
  local head = rec[5] == 's' and 6 or 4
  if #rec == head then return end
  if #rec - head <= 2000 then
    redis.call('XADD', base .. 'log', '*', unpack(rec))
    return
  end
  for c = head + 1, #rec, 2000 do
    local part = { unpack(rec, 1, head) }
    for j = c, math.min(c + 1999, #rec) do part[#part + 1] = rec[j] end
    redis.call('XADD', base .. 'log', '*', unpack(part))
  end
end

-- Every mode:type:render_method, for the keys named per dim and user.
local function allDims()
  local dims = {}
  for _, mode in ipairs({ 'one-off', 'cached' }) do
    for _, typ in ipairs({ 'message', 'custom' }) do
      for _, rm in ipairs({ 'push_notification', 'in_app_message', 'generic_message' }) do dims[#dims + 1] = mode .. ':' .. typ .. ':' .. rm end
    end
  end
  return dims
end

-- The per-user index ('ix:'): a step notes a key (or shared hash field) of a user with when it
-- expires (epoch ms text, or 'inf'); writeIndex stores the notes once per user at the end of the
-- script, drops the members whose time passed and lets the index expire with its last member.
local noted = {}
local function indexNote(user, member, expiresAt)
  local t = noted[user]
  if not t then
    t = {}
    noted[user] = t
  end
  t[#t + 1] = expiresAt
  t[#t + 1] = member
end

local function writeIndex(base, nowText)
  for user, t in pairs(noted) do
    local ix = base .. 'ix:' .. user
    for c = 1, #t, 2000 do redis.call('ZADD', ix, unpack(t, c, math.min(c + 1999, #t))) end
    redis.call('ZREMRANGEBYSCORE', ix, '-inf', nowText)
    local top = redis.call('ZREVRANGE', ix, 0, 0, 'WITHSCORES')
    if top[2] == 'inf' then
      redis.call('PERSIST', ix)
    elseif top[2] then
      redis.call('PEXPIRE', ix, string.format('%d', tonumber(top[2]) - tonumber(nowText)))
    end
  end
  noted = {}
end

local function bump(base, act, inv, counter)
  local key = base .. 'st:' .. act
  redis.call('HINCRBY', key, counter, 1)
  redis.call('HINCRBY', key, inv .. '|' .. counter, 1)
end

-- Removes an action from every index; returns its hash fields (or nil when the hash is gone).
local function unindex(base, rid)
  local rec = base .. 'a:' .. rid
  local f = redis.call('HMGET', rec, 'u', 'm', 't', 'r', 'av', 'i', 'c', 'st', 'l', 'v')
  redis.call('ZREM', base .. 'exp', rid)
  if not f[1] then return nil end
  -- Only an action created with a later available_at was ever listed as pending.
  if f[10] then
    redis.call('ZREM', base .. 'pd:' .. f[2] .. ':' .. f[3] .. ':' .. f[4], rid)
    redis.call('ZREM', base .. 'pu:' .. f[2] .. ':' .. f[3] .. ':' .. f[4] .. ':' .. f[1], rid)
  end
  -- An action stored before the log existed has no log value: its creation time is unknown (0).
  if not f[9] then f[9] = '0|' .. (redis.call('HGET', rec, 'e') or '') .. '|' .. f[2] .. '|' .. f[3] .. '|' .. f[4] end
  local dim = f[2] .. ':' .. f[3] .. ':' .. f[4]
  redis.call('ZREM', base .. 'u:' .. dim .. ':' .. f[1], rid)
  redis.call('ZREM', base .. 'all:' .. dim, rid)
  local kv = cjson.decode(f[5])
  for j = 1, #kv, 2 do redis.call('ZREM', xkey(base, dim, kv[j], kv[j + 1]), rid) end
  return f
end

-- Takes an action out of circulation with a final state; keeps the small hash for idempotency and
-- feedback until the retention runs out.
-- f[11] is 1 when it was a cached action no pull had returned (its entry still marked).
local function retire(base, rid, state, retention, now)
  local f = unindex(base, rid)
  local jkey = base .. 'j:' .. rid
  if f then
    f[11] = (f[2] == 'cached' and redis.call('GETRANGE', jkey, 0, 0) == ' ') and 1 or 0
  end
  redis.call('DEL', jkey)
  if not f then return nil end
  local rec = base .. 'a:' .. rid
  redis.call('HSET', rec, 'st', state)
  if redis.call('PTTL', rec) < 0 then
    redis.call('PEXPIRE', rec, string.format('%d', retention))
    indexNote(f[1], 'a:' .. rid, string.format('%d', tonumber(now) + retention))
  end
  return f
end

-- Retires an available action whose expiry passed; logs it when no pull had returned it.
local function expire(base, rid, retention, xs, now)
  local f = retire(base, rid, 'x', retention, now)
  if f and f[8] == 'a' then
    bump(base, f[7], f[6], 'expired')
    if f[2] == 'one-off' or f[11] == 1 then
      xs[#xs + 1] = rid
      xs[#xs + 1] = logValue(f)
    end
  end
end

local function sweep(base, now, limit, retention, xs)
  local ids = redis.call('ZRANGEBYSCORE', base .. 'exp', '-inf', now, 'LIMIT', 0, limit)
  for _, rid in ipairs(ids) do expire(base, rid, retention, xs, now) end
  return #ids
end
`;

/**
 * KEYS[1] = base..'seq'
 * ARGV: base, now, retention, source, appCapWindow, n, then n groups of 16: rid user mode type rm exp
 *       inv act json attrs logValue avail ('' = at once) campaignKey ('' = no campaign cap)
 *       campaignMax campaignWithin appMax ('' = no app cap)
 * Returns one status per action: created | duplicate | blocked | capped:<reason>.
 */
export const CREATE = `${COMMON}
local base, nowText, retention, source = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local appWindow, n = tonumber(ARGV[5]), tonumber(ARGV[6])
local now = tonumber(nowText)
local out, cs, ps = {}, newLog('c', nowText, source), newLog('p', nowText, source)

-- A cap's counter: creation times of the user's capped-kind actions, trimmed to the window first.
-- Entries are '<rid>@<now>' so a re-created rid (after retention) still counts twice.
local function capFull(key, max, within)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now - within))
  return redis.call('ZCARD', key) >= max
end
local function capRecord(key, within, rid, user)
  redis.call('ZADD', key, now, rid .. '@' .. nowText)
  redis.call('PEXPIRE', key, string.format('%d', within))
  indexNote(user, string.sub(key, #base + 1), string.format('%d', now + within))
end

for i = 0, n - 1 do
  local o = 7 + i * 16
  local rid, user, mode, typ, rm = ARGV[o], ARGV[o + 1], ARGV[o + 2], ARGV[o + 3], ARGV[o + 4]
  local exp, inv, act, json, attrs = ARGV[o + 5], ARGV[o + 6], ARGV[o + 7], ARGV[o + 8], ARGV[o + 9]
  local avail, ckey, amax = ARGV[o + 11], ARGV[o + 12], ARGV[o + 15]
  local rec = base .. 'a:' .. rid
  local ck, cwithin, ak = nil, nil, nil
  if ckey ~= '' then
    ck = base .. 'cc:' .. #user .. ':' .. user .. ':' .. ckey
    cwithin = tonumber(ARGV[o + 14])
  end
  if amax ~= '' then ak = base .. 'ac:' .. user end
  -- Order: duplicate, block, caps (expiry was decided before the call). Both caps are checked
  -- before either counts, so a refused action consumes neither.
  local status = nil
  if redis.call('EXISTS', rec) == 1 then
    status = 'duplicate'
  elseif redis.call('SISMEMBER', base .. 'blk:' .. user, act) == 1 then
    status = 'blocked'
  elseif ck and capFull(ck, tonumber(ARGV[o + 13]), cwithin) then
    status = 'capped:campaign_cap'
  elseif ak and capFull(ak, tonumber(amax), appWindow) then
    status = 'capped:app_cap'
  end
  if status then
    if string.sub(status, 1, 7) == 'capped:' then
      ps[#ps + 1] = rid
      ps[#ps + 1] = string.sub(status, 8) .. '|' .. ARGV[o + 10]
    end
  else
    local seq = redis.call('INCR', KEYS[1])
    local dim = mode .. ':' .. typ .. ':' .. rm
    local kv = cjson.decode(attrs)
    local lv = nowText .. '|' .. exp .. '|' .. mode .. '|' .. typ .. '|' .. rm
    local fields = { 'u', user, 'm', mode, 't', typ, 'r', rm, 'e', exp, 's', seq, 'st', 'a',
                     'av', attrs, 'i', inv, 'c', act, 'l', lv }
    for j = 1, #kv, 2 do
      fields[#fields + 1] = '@' .. kv[j]
      fields[#fields + 1] = kv[j + 1]
    end
    if avail ~= '' then
      -- Not pullable yet: indexed like any action, and listed as pending for its dim (and user),
      -- which sends pulls there to the entry-by-entry path that checks 'v'.
      fields[#fields + 1] = 'v'
      fields[#fields + 1] = avail
      redis.call('ZADD', base .. 'pd:' .. dim, avail, rid)
      redis.call('ZADD', base .. 'pu:' .. dim .. ':' .. user, avail, rid)
    end
    redis.call('HSET', rec, unpack(fields))
    redis.call('ZADD', base .. 'u:' .. dim .. ':' .. user, seq, rid)
    redis.call('ZADD', base .. 'all:' .. dim, seq, rid)
    for j = 1, #kv, 2 do redis.call('ZADD', xkey(base, dim, kv[j], kv[j + 1]), seq, rid) end
    -- A cached action's entry is marked until its first pull (see 'j:' above).
    if mode == 'cached' then json = ' ' .. json end
    if exp ~= '' then
      redis.call('ZADD', base .. 'exp', exp, rid)
      -- %d: Lua would print a large number in exponent notation, which PEXPIRE rejects.
      local ttl = string.format('%d', math.max(0, tonumber(exp) - now) + retention)
      redis.call('PEXPIRE', rec, ttl)
      redis.call('SET', base .. 'j:' .. rid, json, 'PX', ttl)
      indexNote(user, 'a:' .. rid, string.format('%d', now + tonumber(ttl)))
    else
      redis.call('SET', base .. 'j:' .. rid, json)
      indexNote(user, 'a:' .. rid, 'inf')
    end
    if ck then capRecord(ck, cwithin, rid, user) end
    if ak then capRecord(ak, appWindow, rid, user) end
    bump(base, act, inv, 'created')
    cs[#cs + 1] = rid
    cs[#cs + 1] = ARGV[o + 10]
    status = 'created'
  end
  out[#out + 1] = status
end
flushLog(base, cs)
flushLog(base, ps)
writeIndex(base, nowText)
return out
`;

/**
 * KEYS[1] = base..'exp'
 * ARGV: base, now, max, mode, type, rm, user ('*' = all), cursor ('' = start), retention, budget,
 *       lazySweep, nattr, k1, v1, ...
 * Returns { more (0|1), cursor ('' unless more), entry JSON, entry JSON, ... }.
 */
export const PULL = `${COMMON}
local base, nowText = ARGV[1], ARGV[2]
local now, max = tonumber(nowText), tonumber(ARGV[3])
local mode, typ, rm, user, cursor = ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local retention, budget, lazy, nattr = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])

-- A bounded slice of the app's expired actions goes on every pull, so memory stays bounded even
-- without the periodic sweeper.
local xs = newLog('x', nowText)
sweep(base, nowText, lazy, retention, xs)
-- Expired actions still indexed (a sweep backlog) force the entry-by-entry path below, which checks
-- expiry itself, so correctness never depends on the sweeper keeping up.
local backlog = #redis.call('ZRANGEBYSCORE', base .. 'exp', '-inf', nowText, 'LIMIT', 0, 1) > 0

local dim = mode .. ':' .. typ .. ':' .. rm
local scan, implied = nil, 0
if user ~= '*' then
  scan = base .. 'u:' .. dim .. ':' .. user
else
  scan = base .. 'all:' .. dim
  if nattr > 0 then
    local best = redis.call('ZCARD', scan)
    for j = 1, nattr do
      local k = xkey(base, dim, ARGV[12 + 2 * j - 1], ARGV[12 + 2 * j])
      local c = redis.call('ZCARD', k)
      if c < best then best, scan, implied = c, k, j end
    end
  end
end
-- Actions of this dim (and user) whose available_at is still ahead: the ones that became available
-- leave the pending list here, and any left force the entry-by-entry path, which checks 'v'.
local pend = user ~= '*' and (base .. 'pu:' .. dim .. ':' .. user) or (base .. 'pd:' .. dim)
redis.call('ZREMRANGEBYSCORE', pend, '-inf', nowText)
local pending = redis.call('EXISTS', pend) == 1
-- Attr pairs the scanned zset does not already guarantee are checked per entry.
local fields, want = { 'st', 'e', 'v' }, {}
for j = 1, nattr do
  if j ~= implied then
    fields[#fields + 1] = '@' .. ARGV[12 + 2 * j - 1]
    want[#want + 1] = ARGV[12 + 2 * j]
  end
end

local picked = {}
local more, consumed = 0, nil
local min = cursor == '' and '-inf' or ('(' .. cursor)
if not backlog and not pending and #want == 0 then
  -- Every indexed entry matches: take the first max, peek one more for the flag.
  local page = redis.call('ZRANGEBYSCORE', scan, min, '+inf', 'WITHSCORES', 'LIMIT', 0, max + 1)
  local n = #page / 2
  for p = 1, math.min(n, max) do
    picked[p] = page[2 * p - 1]
    consumed = page[2 * p]
  end
  if n > max then more = 1 end
else
  local examined, stop = 0, false
  local chunk = math.min(max + 1, 1000)
  while not stop do
    local page = redis.call('ZRANGEBYSCORE', scan, min, '+inf', 'WITHSCORES', 'LIMIT', 0, chunk)
    if #page == 0 then break end
    for p = 1, #page, 2 do
      local rid, score = page[p], page[p + 1]
      local f = redis.call('HMGET', base .. 'a:' .. rid, unpack(fields))
      if f[1] ~= 'a' then
        -- The hash is gone (retention ran out before a sweep) or retired: a stale index entry.
        redis.call('ZREM', scan, rid)
      elseif f[2] ~= '' and tonumber(f[2]) <= now then
        expire(base, rid, retention, xs, nowText)
      elseif f[3] and tonumber(f[3]) > now then
        -- Not available yet: passed over like an entry that does not match.
      else
        local match = true
        for j = 1, #want do
          if f[3 + j] ~= want[j] then match = false break end
        end
        if match then
          if #picked == max then
            more, stop = 1, true
            break
          end
          picked[#picked + 1] = rid
        end
      end
      consumed = score
      examined = examined + 1
      if examined >= budget then
        -- Bounded work per call keeps Redis responsive when a filter skips many entries; the
        -- caller continues with the cursor.
        more, stop = 1, true
        break
      end
    end
    if #page < chunk * 2 then break end
    min = '(' .. consumed
  end
end

flushLog(base, xs)

-- The entries go back as separate bulk strings: joining 1,000 of them in Lua (table.concat on a
-- large result) costs several times what the MGET does; Node joins them instead. A marked entry
-- (a leading space) is a cached action's first delivery: logged, and the mark dropped (TTL kept).
local out = { more, more == 1 and consumed or '' }
local ds = newLog('d', nowText)
for c = 1, #picked, 1000 do
  local keys = {}
  for p = c, math.min(c + 999, #picked) do keys[#keys + 1] = base .. 'j:' .. picked[p] end
  local got = redis.call('MGET', unpack(keys))
  for i = 1, #keys do
    local j = got[i]
    if j then
      if string.byte(j, 1) == 32 then
        j = string.sub(j, 2)
        redis.call('SET', keys[i], j, 'KEEPTTL')
        local rid = picked[c + i - 1]
        local lv = redis.call('HGET', base .. 'a:' .. rid, 'l')
        if lv then
          ds[#ds + 1] = rid
          ds[#ds + 1] = lv
        end
      end
      out[#out + 1] = j
    end
  end
end
-- Only one-off deliveries are counted: a cached pull stays free of counter writes (a cached action
-- is returned on every pull by design; its reach shows in the clients' 'shown' responses).
if mode == 'one-off' then
  local counted = {}
  for _, rid in ipairs(picked) do
    local f = retire(base, rid, 'd', retention, nowText)
    if f then
      ds[#ds + 1] = rid
      ds[#ds + 1] = logValue(f)
    end
    local key = string.match(rid, '^(%d+:%d+):')
    counted[key] = (counted[key] or 0) + 1
  end
  for key, n in pairs(counted) do
    local inv, act = string.match(key, '^(%d+):(%d+)$')
    local sk = base .. 'st:' .. act
    redis.call('HINCRBY', sk, 'delivered', n)
    redis.call('HINCRBY', sk, inv .. '|delivered', n)
  end
end
flushLog(base, ds)
writeIndex(base, nowText)
return out
`;

/**
 * KEYS[1] = base..'a:'..rid
 * ARGV: base, rid, user, inv, act, response, now, retention, error report JSON ('' unless error),
 *       most error reports kept per action_id, blockTtl
 * Returns recorded | repeated | unknown.
 */
export const FEEDBACK = `${COMMON}
local base, rid, user, inv, act, response = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local now, retention, report, keep = ARGV[7], tonumber(ARGV[8]), ARGV[9], tonumber(ARGV[10])
local blockTtl = ARGV[11]
local rec = KEYS[1]
if redis.call('EXISTS', rec) == 0 then return 'unknown' end
if redis.call('HSETNX', rec, 'f:' .. response, now) == 0 then return 'repeated' end
bump(base, act, inv, 'r:' .. response)
if report ~= '' then
  -- The user's latest error replaces their earlier one; only the newest 'keep' users stay, so the
  -- memory per action_id is bounded whatever the devices send.
  local le, lz = base .. 'le:' .. act, base .. 'lz:' .. act
  redis.call('HSET', le, user, report)
  redis.call('ZADD', lz, redis.call('INCR', base .. 'les'), user)
  local extra = redis.call('ZCARD', lz) - keep
  if extra > 0 then
    local old = redis.call('ZRANGE', lz, 0, extra - 1)
    redis.call('ZREMRANGEBYRANK', lz, 0, extra - 1)
    redis.call('HDEL', le, unpack(old))
  end
  redis.call('PEXPIRE', le, string.format('%d', retention))
  redis.call('PEXPIRE', lz, string.format('%d', retention))
  indexNote(user, 'le:' .. act, string.format('%d', tonumber(now) + retention))
end
if response == 'block' then
  redis.call('SADD', base .. 'blk:' .. user, act)
  redis.call('PEXPIRE', base .. 'blk:' .. user, blockTtl)
  indexNote(user, 'blk:' .. user, string.format('%d', tonumber(now) + tonumber(blockTtl)))
  -- Withdraw every queued action of this action_id for this user, in every dimension.
  local ws = newLog('w', now)
  for _, dim in ipairs(allDims()) do
    for _, other in ipairs(redis.call('ZRANGE', base .. 'u:' .. dim .. ':' .. user, 0, -1)) do
      if redis.call('HGET', base .. 'a:' .. other, 'c') == act then
        local f = retire(base, other, 'w', retention, now)
        if f then
          ws[#ws + 1] = other
          ws[#ws + 1] = logValue(f)
        end
      end
    end
  end
  flushLog(base, ws)
end
writeIndex(base, now)
return 'recorded'
`;

/** KEYS[1] = base..'exp'; ARGV: base, now, limit, retention. Returns how many were swept. */
export const SWEEP = `${COMMON}
local xs = newLog('x', ARGV[2])
local n = sweep(ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), xs)
flushLog(ARGV[1], xs)
writeIndex(ARGV[1], ARGV[2])
return n
`;

/**
 * KEYS[1] = base..'log'
 * ARGV: group, then record ids. Acknowledges and deletes them in one step (a record is never left
 * deleted but pending, or acknowledged but kept). Returns how many were deleted.
 */
export const ACK_LOG = `
local ids = {}
for i = 2, #ARGV do ids[#ids + 1] = ARGV[i] end
redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
return redis.call('XDEL', KEYS[1], unpack(ids))
`;

/**
 * KEYS[1] = base..'st:'..act
 * ARGV: base, act, user. Returns unblocked | not_blocked | unknown_action.
 */
export const UNBLOCK = `
local base, act, user = ARGV[1], ARGV[2], ARGV[3]
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown_action' end
if redis.call('SREM', base .. 'blk:' .. user, act) == 1 then return 'unblocked' end
return 'not_blocked'
`;

/**
 * KEYS[1] = base..'st:'..act
 * ARGV: base, act. Returns { counters as HGETALL, error report JSONs newest first }, in one
 * atomic read so the reports never disagree with the counters.
 */
export const STATS = `
local base, act = ARGV[1], ARGV[2]
local counters = redis.call('HGETALL', KEYS[1])
local users = redis.call('ZREVRANGE', base .. 'lz:' .. act, 0, -1)
local reports = {}
if #users > 0 then reports = redis.call('HMGET', base .. 'le:' .. act, unpack(users)) end
return { counters, reports }
`;

/**
 * KEYS[1] = base..'ix:'..user
 * ARGV: base, user, now (ms). Returns { records, keys } (PersonHoldings, without the outbox's
 * entries): the user's actions, blocked action_ids, cap counter entries and error reports; and every
 * key naming the user, found through the index and at the names derived from the user alone. Only
 * index members whose lapse (score) is after now count: a lapsed one stays in the index until the
 * user's next write prunes it, and its key has expired with it.
 */
export const COUNT_PERSON = `${COMMON}
local base, user, ix = ARGV[1], ARGV[2], KEYS[1]
local records, keys, seen = 0, 0, {}
local function key(k)
  if seen[k] or redis.call('EXISTS', base .. k) == 0 then return false end
  seen[k] = true
  keys = keys + 1
  return true
end
keys = keys + redis.call('EXISTS', ix)
for _, m in ipairs(redis.call('ZRANGEBYSCORE', ix, '(' .. ARGV[3], '+inf')) do
  if string.sub(m, 1, 2) == 'a:' then
    if key(m) then records = records + 1 end
    key('j:' .. string.sub(m, 3))
  elseif string.sub(m, 1, 3) == 'le:' then
    if redis.call('HEXISTS', base .. m, user) == 1 then records = records + 1 end
  elseif string.sub(m, 1, 3) == 'cc:' and key(m) then
    records = records + redis.call('ZCARD', base .. m)
  end
end
if key('ac:' .. user) then records = records + redis.call('ZCARD', base .. 'ac:' .. user) end
if key('blk:' .. user) then records = records + redis.call('SCARD', base .. 'blk:' .. user) end
for _, dim in ipairs(allDims()) do
  key('u:' .. dim .. ':' .. user)
  key('pu:' .. dim .. ':' .. user)
end
return { records, keys }
`;

/**
 * KEYS[1] = base..'ix:'..user
 * ARGV: base, user. Deletes, in one step, every action of the user (taken out of every index first),
 * the user's blocks, cap counters and error reports, the keys named after the user, and the index.
 * The action log's outbox is REWRITE_LOG's. Returns how many index members there were.
 */
export const ERASE_PERSON = `${COMMON}
local base, user, ix = ARGV[1], ARGV[2], KEYS[1]
local dims = allDims()
local members = redis.call('ZRANGE', ix, 0, -1)
for _, m in ipairs(members) do
  if string.sub(m, 1, 2) == 'a:' then
    local rid = string.sub(m, 3)
    if not unindex(base, rid) then
      -- The hash went first (its retention ran out before a sweep): the app-wide lists that may
      -- still name the rid are looked at by name. Attribute lists ('x:') need the hash: see docs/privacy.md.
      for _, dim in ipairs(dims) do
        redis.call('ZREM', base .. 'all:' .. dim, rid)
        redis.call('ZREM', base .. 'pd:' .. dim, rid)
      end
    end
    redis.call('DEL', base .. m, base .. 'j:' .. rid)
  elseif string.sub(m, 1, 3) == 'le:' then
    redis.call('HDEL', base .. m, user)
    redis.call('ZREM', base .. 'lz:' .. string.sub(m, 4), user)
  else
    redis.call('DEL', base .. m)
  end
end
for _, dim in ipairs(dims) do redis.call('DEL', base .. 'u:' .. dim .. ':' .. user, base .. 'pu:' .. dim .. ':' .. user) end
redis.call('DEL', base .. 'blk:' .. user, base .. 'ac:' .. user, ix)
return #members
`;

/**
 * KEYS[1] = base..'log'
 * ARGV: record id, then users. Takes the users' entries out of one outbox record: the record is
 * deleted, and when it named others too, their entries are appended again as a new record (same
 * header; a reader that held the old one acks it as a deleted record). Returns the entries removed.
 */
export const REWRITE_LOG = `
local got = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
if #got == 0 then return 0 end
local fields = got[1][2]
local gone = {}
for i = 2, #ARGV do gone[ARGV[i]] = true end
local head = fields[5] == 's' and 6 or 4
local kept, removed = { unpack(fields, 1, head) }, 0
for i = head + 1, #fields, 2 do
  local user = string.match(fields[i], '^%d+:%d+:(.*)$')
  if gone[user] then
    removed = removed + 1
  else
    kept[#kept + 1] = fields[i]
    kept[#kept + 1] = fields[i + 1]
  end
end
if removed == 0 then return 0 end
redis.call('XDEL', KEYS[1], ARGV[1])
if #kept > head then redis.call('XADD', KEYS[1], '*', unpack(kept)) end
return removed
`;
