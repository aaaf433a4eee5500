-- Atomic conditional append for RedisEventStore (services/kernel/store/redis.py).
-- KEYS: 1 stream, 2 shard feed, 3 shard heads, 4 shard cmds, 5 shard position counter
-- ARGV: 1 stream id, 2 expected version (-1 = any), 3 base version the events were
--       sealed after, 4 base head hash ("" for an empty stream), 5 command field
--       ("" = no command id), 6 hash of the last new event, 7.. one canonical JSON
--       envelope (without position) per event
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
for i = 7, #ARGV do
  v = v + 1
  local pos = redis.call("INCR", KEYS[5])
  if first_position == 0 then
    first_position = pos
  end
  last_position = pos
  redis.call("XADD", KEYS[1], v .. "-0", "pos", pos, "env", ARGV[i])
  redis.call("XADD", KEYS[2], pos .. "-0", "env", ARGV[i])
end

redis.call("HSET", KEYS[3], stream, v .. " " .. ARGV[6])
if cmd ~= "" then
  local result = '{"stream":"' .. stream .. '","version":' .. v ..
    ',"first_position":' .. first_position .. ',"last_position":' .. last_position .. '}'
  redis.call("HSET", KEYS[4], cmd, result)
end
return {"ok", v, first_position, last_position}
