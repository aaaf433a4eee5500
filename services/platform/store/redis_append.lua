-- Atomic conditional append for RedisEventStore (services/platform/store/redis.py).
-- KEYS: 1 stream, 2 shard feed, 3 shard heads, 4 the stream's command hash,
--       5 shard position counter
-- ARGV: 1 stream id, 2 expected version (-1 = any), 3 base version the events were
--       sealed after, 4 base head hash ("" for an empty stream), 5 command field
--       ("<sender>\0<command id>", "" = no command id), 6 hash of the last new event,
--       7 command digest, 8 command record lifetime (seconds), 9.. one canonical JSON
--       envelope (without position) per event
-- The body lives once, in the feed; the stream entry holds only its global position.
-- Returns {"dup", result_json} | {"conflict", actual} | {"stale", actual}
--       | {"ok", version, first_position, last_position}
local stream = ARGV[1]
local expected = tonumber(ARGV[2])
local base_version = tonumber(ARGV[3])
local base_hash = ARGV[4]
local cmd = ARGV[5]

if cmd ~= "" then
  local first = redis.call("HGET", KEYS[4], cmd)
  if first then
    return {"dup", first}
  end
end

local version = 0
local head_hash = ""
local head = redis.call("HGET", KEYS[3], stream)
if head then
  local sep = string.find(head, " ", 1, true)
  version = tonumber(string.sub(head, 1, sep - 1))
  head_hash = string.sub(head, sep + 1)
end

if expected ~= -1 and expected ~= version then
  return {"conflict", version}
end
if version ~= base_version or head_hash ~= base_hash then
  return {"stale", version}
end

local first_position = 0
local last_position = 0
local v = version
for i = 9, #ARGV do
  v = v + 1
  local pos = redis.call("INCR", KEYS[5])
  if first_position == 0 then
    first_position = pos
  end
  last_position = pos
  redis.call("XADD", KEYS[1], v .. "-0", "pos", pos)
  redis.call("XADD", KEYS[2], pos .. "-0", "env", ARGV[i])
end

redis.call("HSET", KEYS[3], stream, v .. " " .. ARGV[6])
if cmd ~= "" then
  local result = '{"digest":"' .. ARGV[7] .. '","first_position":' .. first_position ..
    ',"last_position":' .. last_position .. ',"stream":"' .. stream ..
    '","version":' .. v .. '}'
  redis.call("HSET", KEYS[4], cmd, result)
  redis.call("EXPIRE", KEYS[4], tonumber(ARGV[8]))
end
return {"ok", v, first_position, last_position}
