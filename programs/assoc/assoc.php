<?php

const HEX = '0123456789aBcDeF';

function rhex(int $v): string
{
    $s = '';
    while ($v > 0) {
        $s .= HEX[$v % 16];
        $v = intdiv($v, 16);
    }
    return $s;
}

function first_digit(float $d): int
{
    while ($d > 10) {
        $d /= 10;
    }
    return (int) $d;
}

$n = isset($argv[1]) ? (int) $argv[1] : 12000000;
$m = [];
$dup1 = $dup2 = $dup3 = 0;
for ($z = $n; $z > 0; $z--) {
    $v2 = $n - $z;
    $v3 = 2 * $n - $z;

    $key = (string) $z;
    if (isset($m[$key])) {
        $m[$key] += $v2;
        $dup1++;
    } else {
        $m[$key] = (float) $z;
    }

    $key = (string) $v2;
    if (isset($m[$key])) {
        $m[$key] += $v3;
        $dup2++;
    } else {
        $m[$key] = (float) $v2;
    }

    $key = rhex($v3);
    if (isset($m[$key])) {
        $m[$key] += $z;
        $dup3++;
    } else {
        $m[$key] = (float) $v3;
    }
}
echo "$dup1 $dup2 $dup3\n";

$total = $verify = $count = 0;
foreach ($m as $key => $value) {
    $total += first_digit($value);
    // PHP stores integer-like string keys ("123") as int keys; strlen() gets their text back.
    $verify += strlen((string) $key);
    $count++;
}
echo "$total $verify $count\n";
