HEX_DIGITS = "0123456789aBcDeF"

# base-16 digits of v, least significant digit first
def rhex(v : Int64) : String
  String.build do |s|
    while v > 0
      s << HEX_DIGITS[v % 16]
      v //= 16
    end
  end
end

def first_digit(d : Float64) : Int64
  while d > 10
    d /= 10
  end
  d.to_i64
end

# returns 1 when the key was already there (a duplicate), 0 otherwise
def set_or_inc(m : Hash(String, Float64), key : String, set : Int64, inc : Int64) : Int64
  if old = m[key]?
    m[key] = old + inc
    1_i64
  else
    m[key] = set.to_f64
    0_i64
  end
end

n = (ARGV[0]? || "12000000").to_i64
m = Hash(String, Float64).new
dup1 = dup2 = dup3 = 0_i64
z = n
while z > 0
  v2 = n - z
  v3 = 2 * n - z
  dup1 += set_or_inc(m, z.to_s, z, v2)
  dup2 += set_or_inc(m, v2.to_s, v2, v3)
  dup3 += set_or_inc(m, rhex(v3), v3, z)
  z -= 1
end
puts "#{dup1} #{dup2} #{dup3}"

total = verify = count = 0_i64
m.each do |key, value|
  total += first_digit(value)
  verify += key.bytesize
  count += 1
end
puts "#{total} #{verify} #{count}"
