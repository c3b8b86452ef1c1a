n = (ARGV[0] || 10_000_000).to_i
a = Array.new(n) { |i| (n - i).to_s }

gap = n
loop do
  gap = (gap / 1.3).floor
  gap = 11 if gap == 9 || gap == 10
  gap = 1 if gap < 1
  swapped = false
  (0...n - gap).each do |i|
    if a[i] > a[i + gap]
      a[i], a[i + gap] = a[i + gap], a[i]
      swapped = true
    end
  end
  break if gap == 1 && !swapped
end

bad = (1...n).count { |i| a[i] < a[i - 1] }
puts "#{bad} #{a[0]} #{a[n - 1]}"
