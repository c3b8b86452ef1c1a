import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000000
    a = [str(n - i) for i in range(n)]

    gap = n
    while True:
        gap = int(gap / 1.3)
        if gap == 9 or gap == 10:
            gap = 11
        if gap < 1:
            gap = 1
        swapped = False
        for i in range(n - gap):
            if a[i] > a[i + gap]:
                a[i], a[i + gap] = a[i + gap], a[i]
                swapped = True
        if gap == 1 and not swapped:
            break

    bad = 0
    for i in range(1, n):
        if a[i] < a[i - 1]:
            bad += 1
    print(bad, a[0], a[n - 1])


main()
