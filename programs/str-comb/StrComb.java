public class StrComb {
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10000000;

        String[] a = new String[n];
        for (int i = 0; i < n; i++) {
            a[i] = Integer.toString(n - i);
        }

        int gap = n;
        while (true) {
            gap = (int) (gap / 1.3);
            if (gap == 9 || gap == 10) gap = 11;
            if (gap < 1) gap = 1;
            boolean swapped = false;
            for (int i = 0; i < n - gap; i++) {
                if (a[i].compareTo(a[i + gap]) > 0) {
                    String t = a[i];
                    a[i] = a[i + gap];
                    a[i + gap] = t;
                    swapped = true;
                }
            }
            if (gap == 1 && !swapped) break;
        }

        int bad = 0;
        for (int i = 1; i < n; i++) {
            if (a[i].compareTo(a[i - 1]) < 0) bad++;
        }
        System.out.println(bad + " " + a[0] + " " + a[n - 1]);
    }
}
