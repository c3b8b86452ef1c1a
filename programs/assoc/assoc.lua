-- Runs unchanged on LuaJIT, Lua 5.3 and Lua 5.4.
local HEX = "0123456789aBcDeF"

local function rhex(v)
  local digits = {}
  while v > 0 do
    local d = v % 16
    digits[#digits + 1] = HEX:sub(d + 1, d + 1)
    v = math.floor(v / 16)
  end
  return table.concat(digits)
end

local function first_digit(d)
  while d > 10 do
    d = d / 10
  end
  return math.floor(d)
end

local n = tonumber(arg[1]) or 12000000
local m = {}
local dup1, dup2, dup3 = 0, 0, 0
for z = n, 1, -1 do
  local v2 = n - z
  local v3 = 2 * n - z

  local key = string.format("%d", z)
  local old = m[key]
  if old then
    m[key] = old + v2
    dup1 = dup1 + 1
  else
    m[key] = z + 0.0
  end

  key = string.format("%d", v2)
  old = m[key]
  if old then
    m[key] = old + v3
    dup2 = dup2 + 1
  else
    m[key] = v2 + 0.0
  end

  key = rhex(v3)
  old = m[key]
  if old then
    m[key] = old + z
    dup3 = dup3 + 1
  else
    m[key] = v3 + 0.0
  end
end
print(string.format("%d %d %d", dup1, dup2, dup3))

local total, verify, count = 0, 0, 0
for key, value in pairs(m) do
  total = total + first_digit(value)
  verify = verify + #key
  count = count + 1
end
print(string.format("%d %d %d", total, verify, count))
