# assoc (docs/benchmarks.md): a dict from string keys to doubles, updated in
# place (the variable holds the only reference), lookup then store: Tcl's
# dict has no insert that reports whether the key was there.
set HEX "0123456789aBcDeF"

proc rhex {v} {
    global HEX
    set s ""
    while {$v > 0} {
        append s [string index $HEX [expr {$v % 16}]]
        set v [expr {$v / 16}]
    }
    return $s
}

proc first_digit {d} {
    while {$d > 10} {
        set d [expr {$d / 10.0}]
    }
    return [expr {int($d)}]
}

proc main {n} {
    set m [dict create]
    set dup1 0
    set dup2 0
    set dup3 0
    for {set z $n} {$z >= 1} {incr z -1} {
        set v2 [expr {$n - $z}]
        set v3 [expr {2 * $n - $z}]

        set key [format %d $z]
        if {[dict exists $m $key]} {
            dict set m $key [expr {[dict get $m $key] + $v2}]
            incr dup1
        } else {
            dict set m $key [expr {double($z)}]
        }

        set key [format %d $v2]
        if {[dict exists $m $key]} {
            dict set m $key [expr {[dict get $m $key] + $v3}]
            incr dup2
        } else {
            dict set m $key [expr {double($v2)}]
        }

        set key [rhex $v3]
        if {[dict exists $m $key]} {
            dict set m $key [expr {[dict get $m $key] + $z}]
            incr dup3
        } else {
            dict set m $key [expr {double($v3)}]
        }
    }
    puts "$dup1 $dup2 $dup3"

    set total 0
    set verify 0
    set count 0
    dict for {key value} $m {
        incr total [first_digit $value]
        incr verify [string length $key]
        incr count
    }
    puts "$total $verify $count"
}

main [expr {$argc > 0 ? [lindex $argv 0] : 12000000}]
