HEX = "0123456789aBcDeF"

def rhex(v)
  s = ""
  while v > 0
    s << HEX[v % 16]
    v /= 16
  end
  s
end

def first_digit(d)
  d /= 10 while d > 10
  d.to_i
end

n = (ARGV[0] || 12_000_000).to_i
m = {}
dup1 = dup2 = dup3 = 0
n.downto(1) do |z|
  v2 = n - z
  v3 = 2 * n - z

  key = z.to_s
  if (old = m[key])
    m[key] = old + v2
    dup1 += 1
  else
    m[key] = z.to_f
  end

  key = v2.to_s
  if (old = m[key])
    m[key] = old + v3
    dup2 += 1
  else
    m[key] = v2.to_f
  end

  key = rhex(v3)
  if (old = m[key])
    m[key] = old + z
    dup3 += 1
  else
    m[key] = v3.to_f
  end
end
puts "#{dup1} #{dup2} #{dup3}"

total = verify = count = 0
m.each do |key, value|
  total += first_digit(value)
  verify += key.bytesize
  count += 1
end
puts "#{total} #{verify} #{count}"
