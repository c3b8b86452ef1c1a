-- Runs unchanged on LuaJIT, Lua 5.3 and Lua 5.4 (Lua arrays are 1-based).
-- String < compares bytes here: the interpreter never calls setlocale, so it runs in the C locale.
local n = tonumber(arg[1]) or 10000000
local a = {}
for i = 1, n do
  a[i] = string.format("%d", n - i + 1)
end

local gap = n
repeat
  gap = math.floor(gap / 1.3)
  if gap == 9 or gap == 10 then gap = 11 end
  if gap < 1 then gap = 1 end
  local swapped = false
  for i = 1, n - gap do
    if a[i] > a[i + gap] then
      a[i], a[i + gap] = a[i + gap], a[i]
      swapped = true
    end
  end
until gap == 1 and not swapped

local bad = 0
for i = 2, n do
  if a[i] < a[i - 1] then bad = bad + 1 end
end
print(string.format("%d %s %s", bad, a[1], a[n]))
