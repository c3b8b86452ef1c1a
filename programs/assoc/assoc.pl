use strict;
use warnings;

my @HEX = split //, '0123456789aBcDeF';

sub rhex {
    my ($v) = @_;
    my $s = '';
    while ($v > 0) {
        $s .= $HEX[$v % 16];
        $v = int($v / 16);
    }
    return $s;
}

sub first_digit {
    my ($d) = @_;
    $d /= 10 while $d > 10;
    return int($d);
}

my $n = $ARGV[0] // 12_000_000;
my %m;
my ($dup1, $dup2, $dup3) = (0, 0, 0);
for (my $z = $n; $z > 0; $z--) {
    my $v2 = $n - $z;
    my $v3 = 2 * $n - $z;

    if (exists $m{$z}) {
        $m{$z} += $v2;
        $dup1++;
    } else {
        $m{$z} = $z;
    }

    if (exists $m{$v2}) {
        $m{$v2} += $v3;
        $dup2++;
    } else {
        $m{$v2} = $v2;
    }

    my $key = rhex($v3);
    if (exists $m{$key}) {
        $m{$key} += $z;
        $dup3++;
    } else {
        $m{$key} = $v3;
    }
}
print "$dup1 $dup2 $dup3\n";

my ($total, $verify, $count) = (0, 0, 0);
while (my ($key, $value) = each %m) {
    $total += first_digit($value);
    $verify += length $key;
    $count++;
}
print "$total $verify $count\n";
