<?php

$n = isset($argv[1]) ? (int) $argv[1] : 10000000;
$a = [];
for ($i = 0; $i < $n; $i++) {
    $a[] = (string) ($n - $i);
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
        // strcmp: byte-wise comparison (a plain > would compare numeric strings as numbers)
        if (strcmp($a[$i], $a[$i + $gap]) > 0) {
            $t = $a[$i];
            $a[$i] = $a[$i + $gap];
            $a[$i + $gap] = $t;
            $swapped = true;
        }
    }
} while ($gap != 1 || $swapped);

$bad = 0;
for ($i = 1; $i < $n; $i++) {
    if (strcmp($a[$i], $a[$i - 1]) < 0) {
        $bad++;
    }
}
echo "$bad {$a[0]} {$a[$n - 1]}\n";
