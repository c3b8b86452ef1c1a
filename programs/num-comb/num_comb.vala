// num-comb: comb sort of a double[] (Vala's array of 64-bit floats).
int main (string[] args) {
    int n = args.length > 1 ? int.parse (args[1]) : 10000000;
    double[] a = new double[n];
    for (int i = 0; i < n; i++) {
        a[i] = n - i;
    }

    int gap = n;
    bool swapped = false;
    do {
        gap = (int) (gap / 1.3);
        if (gap == 9 || gap == 10) {
            gap = 11;
        }
        if (gap < 1) {
            gap = 1;
        }
        swapped = false;
        for (int i = 0; i < n - gap; i++) {
            if (a[i] > a[i + gap]) {
                double t = a[i];
                a[i] = a[i + gap];
                a[i + gap] = t;
                swapped = true;
            }
        }
    } while (gap != 1 || swapped);

    int bad = 0;
    for (int i = 1; i < n; i++) {
        if (a[i] < a[i - 1]) {
            bad++;
        }
    }
    print ("%d %lld %lld\n", bad, (int64) a[0], (int64) a[n - 1]);
    return 0;
}
