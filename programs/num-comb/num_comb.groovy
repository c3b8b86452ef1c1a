int n = args ? args[0].toInteger() : 10000000

double[] a = new double[n]
for (int i = 0; i < n; i++) {
    a[i] = n - i
}

int gap = n
while (true) {
    gap = (int) (gap / 1.3d)
    if (gap == 9 || gap == 10) gap = 11
    if (gap < 1) gap = 1
    boolean swapped = false
    for (int i = 0; i < n - gap; i++) {
        if (a[i] > a[i + gap]) {
            double t = a[i]
            a[i] = a[i + gap]
            a[i + gap] = t
            swapped = true
        }
    }
    if (gap == 1 && !swapped) break
}

int bad = 0
for (int i = 1; i < n; i++) {
    if (a[i] < a[i - 1]) bad++
}
println "$bad ${(long) a[0]} ${(long) a[n - 1]}"
