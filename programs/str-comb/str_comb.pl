use strict;
use warnings;

my $n = $ARGV[0] // 10_000_000;
my @a;
for my $i (0 .. $n - 1) {
    push @a, "" . ($n - $i);
}

my $gap = $n;
while (1) {
    $gap = int($gap / 1.3);
    $gap = 11 if $gap == 9 || $gap == 10;
    $gap = 1 if $gap < 1;
    my $swapped = 0;
    for my $i (0 .. $n - $gap - 1) {
        if ($a[$i] gt $a[$i + $gap]) {
            @a[$i, $i + $gap] = @a[$i + $gap, $i];
            $swapped = 1;
        }
    }
    last if $gap == 1 && !$swapped;
}

my $bad = 0;
for my $i (1 .. $n - 1) {
    $bad++ if $a[$i] lt $a[$i - 1];
}
print "$bad $a[0] $a[-1]\n";
