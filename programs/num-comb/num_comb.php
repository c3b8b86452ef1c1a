<?php

$n = isset($argv[1]) ? (int) $argv[1] : 10000000;
$a = [];
for ($i = 0; $i < $n; $i++) {
    $a[] = (float) ($n - $i);
}

$gap = $n;
do {
    $gap = (int) floor($gap / 1.3);
    if ($gap == 9 || $gap == 10) {
        $gap = 11;
    }
    if ($gap < 1) {
        $gap = 1;
    }
    $swapped = false;
    for ($i = 0, $end = $n - $gap; $i < $end; $i++) {
        if ($a[$i] > $a[$i + $gap]) {
            $t = $a[$i];
            $a[$i] = $a[$i + $gap];
            $a[$i + $gap] = $t;
            $swapped = true;
        }
    }
} while ($gap != 1 || $swapped);

$bad = 0;
for ($i = 1; $i < $n; $i++) {
    if ($a[$i] < $a[$i - 1]) {
        $bad++;
    }
}
printf("%d %d %d\n", $bad, $a[0], $a[$n - 1]);
