using System;

class StrComb
{
    static void Main(string[] args)
    {
        int n = args.Length > 0 ? int.Parse(args[0]) : 10000000;

        var a = new string[n];
        for (int i = 0; i < n; i++)
        {
            a[i] = (n - i).ToString();
        }

        int gap = n;
        while (true)
        {
            gap = (int)(gap / 1.3);
            if (gap == 9 || gap == 10) gap = 11;
            if (gap < 1) gap = 1;
            bool swapped = false;
            for (int i = 0; i < n - gap; i++)
            {
                if (string.CompareOrdinal(a[i], a[i + gap]) > 0)
                {
                    string t = a[i];
                    a[i] = a[i + gap];
                    a[i + gap] = t;
                    swapped = true;
                }
            }
            if (gap == 1 && !swapped) break;
        }

        int bad = 0;
        for (int i = 1; i < n; i++)
        {
            if (string.CompareOrdinal(a[i], a[i - 1]) < 0) bad++;
        }
        Console.WriteLine($"{bad} {a[0]} {a[n - 1]}");
    }
}
