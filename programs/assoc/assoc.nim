import std/[os, strutils, tables]

const hexDigits = "0123456789aBcDeF"

proc rhex(v: int): string =
  ## base-16 digits of v, least significant digit first
  var v = v
  while v > 0:
    result.add hexDigits[v mod 16]
    v = v div 16

proc firstDigit(d: float): int =
  var d = d
  while d > 10:
    d = d / 10
  int(d)

proc setOrInc(m: var Table[string, float], key: string, set, inc: int, counter: var int) =
  # hasKeyOrPut: one lookup that stores `set` when the key is new
  # (Nim's get-or-insert; the 2020 original used it too)
  if m.hasKeyOrPut(key, float(set)):
    m[key] += float(inc)
    inc counter

proc main() =
  let n = if paramCount() >= 1: parseInt(paramStr(1)) else: 12_000_000
  var m = initTable[string, float]()
  var dup1, dup2, dup3 = 0
  for z in countdown(n, 1):
    let v2 = n - z
    let v3 = 2 * n - z
    setOrInc(m, $z, z, v2, dup1)
    setOrInc(m, $v2, v2, v3, dup2)
    setOrInc(m, rhex(v3), v3, z, dup3)
  echo dup1, " ", dup2, " ", dup3

  var total, verify, count = 0
  for key, value in m:
    total += firstDigit(value)
    verify += key.len
    inc count
  echo total, " ", verify, " ", count

main()
