use "collections"

actor Main
  new create(env: Env) =>
    let n: I64 = try env.args(1)?.i64()? else 12_000_000 end
    let m = Map[String, F64]
    var dup1: I64 = 0
    var dup2: I64 = 0
    var dup3: I64 = 0
    var z = n
    while z > 0 do
      let v2 = n - z
      let v3 = (2 * n) - z
      dup1 = dup1 + _set_or_inc(m, z.string(), z, v2)
      dup2 = dup2 + _set_or_inc(m, v2.string(), v2, v3)
      dup3 = dup3 + _set_or_inc(m, _rhex(v3), v3, z)
      z = z - 1
    end
    env.out.print(dup1.string() + " " + dup2.string() + " " + dup3.string())

    var total: I64 = 0
    var verify: I64 = 0
    var count: I64 = 0
    for (key, value) in m.pairs() do
      total = total + _first_digit(value)
      verify = verify + key.size().i64()
      count = count + 1
    end
    env.out.print(total.string() + " " + verify.string() + " " + count.string())

  fun _set_or_inc(m: Map[String, F64], key: String, set: I64, inc: I64): I64 =>
    """
    Returns 1 when the key was already there (a duplicate), 0 otherwise.
    """
    try
      let old = m(key)?
      m(key) = old + inc.f64()
      1
    else
      m(key) = set.f64()
      0
    end

  fun _rhex(value: I64): String =>
    """
    The base-16 digits of value, least significant digit first.
    """
    recover val
      let digits = "0123456789aBcDeF"
      let s = String(16)
      var v = value
      while v > 0 do
        try s.push(digits((v % 16).usize())?) end
        v = v / 16
      end
      s
    end

  fun _first_digit(value: F64): I64 =>
    var d = value
    while d > 10 do
      d = d / 10
    end
    d.i64()
