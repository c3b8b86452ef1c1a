# assoc: awk's associative array (string keys) holding floats (every awk
# number is a double). Run as: awk -f assoc.awk N

function rhex(v,    s) {
    s = ""
    while (v > 0) {
        s = s substr(HEX, v % 16 + 1, 1)
        v = int(v / 16)
    }
    return s
}

function first_digit(d) {
    while (d > 10)
        d /= 10
    return int(d)
}

BEGIN {
    HEX = "0123456789aBcDeF"
    n = ARGC > 1 ? ARGV[1] + 0 : 12000000
    dup1 = dup2 = dup3 = 0
    for (z = n; z >= 1; z--) {
        v2 = n - z
        v3 = 2 * n - z

        key = z ""
        if (key in m) {
            m[key] += v2
            dup1++
        } else
            m[key] = z

        key = v2 ""
        if (key in m) {
            m[key] += v3
            dup2++
        } else
            m[key] = v2

        key = rhex(v3)
        if (key in m) {
            m[key] += z
            dup3++
        } else
            m[key] = v3
    }
    print dup1, dup2, dup3

    total = verify = count = 0
    for (key in m) {
        total += first_digit(m[key])
        verify += length(key)
        count++
    }
    print total, verify, count
}
