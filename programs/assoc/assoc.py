import sys

HEX = "0123456789aBcDeF"


def rhex(v):
    digits = []
    while v > 0:
        digits.append(HEX[v % 16])
        v //= 16
    return "".join(digits)


def first_digit(d):
    while d > 10:
        d /= 10
    return int(d)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 12000000
    m = {}
    dup1 = dup2 = dup3 = 0
    for z in range(n, 0, -1):
        v2 = n - z
        v3 = 2 * n - z

        key = str(z)
        if key in m:
            m[key] += v2
            dup1 += 1
        else:
            m[key] = float(z)

        key = str(v2)
        if key in m:
            m[key] += v3
            dup2 += 1
        else:
            m[key] = float(v2)

        key = rhex(v3)
        if key in m:
            m[key] += z
            dup3 += 1
        else:
            m[key] = float(v3)
    print(dup1, dup2, dup3)

    total = verify = count = 0
    for key, value in m.items():
        total += first_digit(value)
        verify += len(key)
        count += 1
    print(total, verify, count)


main()
