# str-comb: comb sort of an awk array of strings. The values are made strings
# (concatenation with ""), so > and < compare them as strings, not numbers.
# Run as: awk -f str_comb.awk N

BEGIN {
    n = ARGC > 1 ? ARGV[1] + 0 : 10000000
    for (i = 0; i < n; i++)
        a[i] = (n - i) ""

    gap = n
    do {
        gap = int(gap / 1.3)
        if (gap == 9 || gap == 10)
            gap = 11
        if (gap < 1)
            gap = 1
        swapped = 0
        for (i = 0; i < n - gap; i++) {
            if (a[i] > a[i + gap]) {
                t = a[i]
                a[i] = a[i + gap]
                a[i + gap] = t
                swapped = 1
            }
        }
    } while (gap != 1 || swapped)

    bad = 0
    for (i = 1; i < n; i++)
        if (a[i] < a[i - 1])
            bad++
    print bad, a[0], a[n - 1]
}
