n = (ARGV[0]? || "10000000").to_i64
a = Array(Float64).new(n) { |i| (n - i).to_f64 }

gap = n
loop do
  gap = (gap / 1.3).to_i64
  gap = 11_i64 if gap == 9 || gap == 10
  gap = 1_i64 if gap < 1
  swapped = false
  (0_i64...n - gap).each do |i|
    if a[i] > a[i + gap]
      a.swap(i, i + gap)
      swapped = true
    end
  end
  break if gap == 1 && !swapped
end

bad = (1_i64...n).count { |i| a[i] < a[i - 1] }
puts "#{bad} #{a[0].to_i64} #{a[n - 1].to_i64}"
