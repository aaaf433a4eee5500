-- Matchmaking state transitions, each one atomic. KEYS[1] is the key prefix ("{mm}").
-- ARGV[1] names the operation; the rest are its arguments.
local p = KEYS[1]
local op = ARGV[1]

local function unlock(id)
  local key = redis.call('HGET', p .. ':tk:' .. id, 'key')
  local players = cjson.decode(redis.call('HGET', p .. ':tk:' .. id, 'players'))
  for _, pl in ipairs(players) do
    local lk = p .. ':live:' .. key .. ':' .. pl
    if redis.call('GET', lk) == id then redis.call('DEL', lk) end
  end
end

if op == 'enqueue' then
  -- id, key, queued_at, fields, players(json)
  local id, key, at, fields = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
  local players = cjson.decode(ARGV[6])
  for _, pl in ipairs(players) do
    local held = redis.call('GET', p .. ':live:' .. key .. ':' .. pl)
    if held then return {'live', pl, held} end
  end
  redis.call('HSET', p .. ':tk:' .. id, 'fields', fields, 'state', 'queued', 'key', key,
    'players', ARGV[6])
  redis.call('ZADD', p .. ':q:' .. key, at, id)
  for _, pl in ipairs(players) do redis.call('SET', p .. ':live:' .. key .. ':' .. pl, id) end
  return {'ok'}
elseif op == 'claim' then
  -- claim_id, now, ids...
  local cid, now = ARGV[2], ARGV[3]
  for i = 4, #ARGV do
    if redis.call('HGET', p .. ':tk:' .. ARGV[i], 'state') ~= 'queued' then return 0 end
  end
  local ids = {}
  for i = 4, #ARGV do
    local id = ARGV[i]
    redis.call('HSET', p .. ':tk:' .. id, 'state', 'claimed')
    redis.call('ZREM', p .. ':q:' .. redis.call('HGET', p .. ':tk:' .. id, 'key'), id)
    table.insert(ids, id)
  end
  redis.call('SET', p .. ':claim:' .. cid, cjson.encode(ids))
  redis.call('ZADD', p .. ':claims', now, cid)
  return 1
elseif op == 'claim_many' then
  -- now, then per group: claim_id, count, ids...; returns 1/0 per group
  local now, i, out = ARGV[2], 3, {}
  while i <= #ARGV do
    local cid, n = ARGV[i], tonumber(ARGV[i + 1])
    local ok = 1
    for k = i + 2, i + 1 + n do
      if redis.call('HGET', p .. ':tk:' .. ARGV[k], 'state') ~= 'queued' then ok = 0 end
    end
    if ok == 1 then
      local ids = {}
      for k = i + 2, i + 1 + n do
        local id = ARGV[k]
        redis.call('HSET', p .. ':tk:' .. id, 'state', 'claimed')
        redis.call('ZREM', p .. ':q:' .. redis.call('HGET', p .. ':tk:' .. id, 'key'), id)
        table.insert(ids, id)
      end
      redis.call('SET', p .. ':claim:' .. cid, cjson.encode(ids))
      redis.call('ZADD', p .. ':claims', now, cid)
    end
    table.insert(out, ok)
    i = i + 2 + n
  end
  return out
elseif op == 'complete' then
  -- per game: claim_id, game_id, game_json, count, (ticket id, matches_json)...
  local i, out = 2, {}
  while i <= #ARGV do
    local cid, gid, n = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 3])
    local ok = redis.call('ZREM', p .. ':claims', cid)
    if ok == 1 then
      redis.call('DEL', p .. ':claim:' .. cid)
      for k = i + 4, i + 2 + 2 * n, 2 do
        redis.call('HSET', p .. ':tk:' .. ARGV[k], 'state', 'matched', 'matches', ARGV[k + 1])
        unlock(ARGV[k])
      end
      redis.call('SET', p .. ':g:' .. gid, ARGV[i + 2])
      redis.call('SADD', p .. ':live_games', gid)
    end
    table.insert(out, ok)
    i = i + 4 + 2 * n
  end
  return out
elseif op == 'release' then
  local cid = ARGV[2]
  if redis.call('ZREM', p .. ':claims', cid) == 0 then return 0 end
  local ids = cjson.decode(redis.call('GET', p .. ':claim:' .. cid))
  redis.call('DEL', p .. ':claim:' .. cid)
  for _, id in ipairs(ids) do
    local tk = p .. ':tk:' .. id
    if redis.call('HGET', tk, 'state') == 'claimed' then
      redis.call('HSET', tk, 'state', 'queued')
      local f = cjson.decode(redis.call('HGET', tk, 'fields'))
      redis.call('ZADD', p .. ':q:' .. redis.call('HGET', tk, 'key'), f['queued_at'], id)
    end
  end
  return 1
elseif op == 'finish' then
  -- id, state (cancelled | expired): only from queued
  local id, state = ARGV[2], ARGV[3]
  local tk = p .. ':tk:' .. id
  local now = redis.call('HGET', tk, 'state')
  if not now then return {'missing'} end
  if now ~= 'queued' then return {'state', now} end
  redis.call('HSET', tk, 'state', state)
  redis.call('ZREM', p .. ':q:' .. redis.call('HGET', tk, 'key'), id)
  unlock(id)
  return {'ok'}
elseif op == 'rate' then
  -- game_id, key, (player, row_json, ordinal)...
  if redis.call('SADD', p .. ':rated', ARGV[2]) == 0 then return 0 end
  local key = ARGV[3]
  for i = 4, #ARGV, 3 do
    redis.call('HSET', p .. ':r:' .. key, ARGV[i], ARGV[i + 1])
    redis.call('ZADD', p .. ':lb:' .. key, ARGV[i + 2], ARGV[i])
  end
  return 1
end
return redis.error_reply('unknown op ' .. tostring(op))
