# num-comb (docs/benchmarks.md): comb sort of a list of doubles, swapped in
# place with lset (the variable holds the only reference).
proc main {n} {
    set a {}
    for {set i 0} {$i < $n} {incr i} {
        lappend a [expr {double($n - $i)}]
    }

    set gap $n
    while 1 {
        set gap [expr {int($gap / 1.3)}]
        if {$gap == 9 || $gap == 10} {
            set gap 11
        }
        if {$gap < 1} {
            set gap 1
        }
        set swapped 0
        set last [expr {$n - $gap}]
        for {set i 0} {$i < $last} {incr i} {
            set j [expr {$i + $gap}]
            set x [lindex $a $i]
            set y [lindex $a $j]
            if {$x > $y} {
                lset a $i $y
                lset a $j $x
                set swapped 1
            }
        }
        if {$gap == 1 && !$swapped} {
            break
        }
    }

    set bad 0
    for {set i 1} {$i < $n} {incr i} {
        if {[lindex $a $i] < [lindex $a [expr {$i - 1}]]} {
            incr bad
        }
    }
    puts "$bad [expr {int([lindex $a 0])}] [expr {int([lindex $a end])}]"
}

main [expr {$argc > 0 ? [lindex $argv 0] : 10000000}]
