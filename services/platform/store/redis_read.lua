-- Read a stream's events for RedisEventStore: the stream holds positions, the feed bodies.
-- KEYS: 1 stream, 2 shard feed; ARGV: 1 first entry id ("-" = from the start)
-- Returns a flat list {position, body, position, body, ...}
local out = {}
local entries = redis.call("XRANGE", KEYS[1], ARGV[1], "+")
for _, entry in ipairs(entries) do
  local fields = entry[2]
  local pos, body = nil, nil
  for i = 1, #fields, 2 do
    if fields[i] == "pos" then pos = fields[i + 1] end
    if fields[i] == "env" then body = fields[i + 1] end
  end
  if body == nil then
    local hit = redis.call("XRANGE", KEYS[2], pos .. "-0", pos .. "-0")
    body = hit[1][2][2]
  end
  out[#out + 1] = pos
  out[#out + 1] = body
end
return out
