import std.algorithm : swap;
import std.conv : to;
import std.stdio : writeln;

void main(string[] args)
{
    size_t n = args.length > 1 ? args[1].to!size_t : 10_000_000;
    auto a = new double[n];
    foreach (i; 0 .. n)
        a[i] = n - i;

    size_t gap = n;
    bool swapped;
    do
    {
        gap = cast(size_t)(gap / 1.3);
        if (gap == 9 || gap == 10)
            gap = 11;
        if (gap < 1)
            gap = 1;
        swapped = false;
        for (size_t i = 0; i + gap < n; ++i)
        {
            if (a[i] > a[i + gap])
            {
                swap(a[i], a[i + gap]);
                swapped = true;
            }
        }
    }
    while (gap != 1 || swapped);

    long bad;
    foreach (i; 1 .. n)
        if (a[i] < a[i - 1])
            ++bad;
    writeln(bad, " ", cast(long) a[0], " ", cast(long) a[n - 1]);
}
