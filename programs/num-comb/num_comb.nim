import std/[os, strutils]

proc main() =
  let n = if paramCount() >= 1: parseInt(paramStr(1)) else: 10_000_000
  var a = newSeq[float](n)
  for i in 0 ..< n:
    a[i] = float(n - i)

  var gap = n
  while true:
    gap = int(float(gap) / 1.3)
    if gap == 9 or gap == 10:
      gap = 11
    if gap < 1:
      gap = 1
    var swapped = false
    for i in 0 ..< n - gap:
      if a[i] > a[i + gap]:
        swap(a[i], a[i + gap])
        swapped = true
    if gap == 1 and not swapped:
      break

  var bad = 0
  for i in 1 ..< n:
    if a[i] < a[i - 1]:
      inc bad
  echo bad, " ", int(a[0]), " ", int(a[n - 1])

main()
