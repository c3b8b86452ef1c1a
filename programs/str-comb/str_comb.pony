actor Main
  new create(env: Env) =>
    let n: USize = try env.args(1)?.usize()? else 10_000_000 end
    let a = Array[String](n)
    var i: USize = 0
    while i < n do
      a.push((n - i).string())
      i = i + 1
    end

    try
      var gap = n
      while true do
        gap = (gap.f64() / 1.3).usize()
        if (gap == 9) or (gap == 10) then gap = 11 end
        if gap < 1 then gap = 1 end
        var swapped = false
        var j: USize = 0
        while (j + gap) < n do
          if a(j)? > a(j + gap)? then
            a.swap_elements(j, j + gap)?
            swapped = true
          end
          j = j + 1
        end
        if (gap == 1) and (not swapped) then break end
      end

      var bad: USize = 0
      var k: USize = 1
      while k < n do
        if a(k)? < a(k - 1)? then bad = bad + 1 end
        k = k + 1
      end
      env.out.print(bad.string() + " " + a(0)? + " " + a(n - 1)?)
    end
