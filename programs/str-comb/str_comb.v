import os

fn main() {
	n := if os.args.len > 1 { os.args[1].int() } else { 10000000 }
	mut a := []string{len: n}
	for i in 0 .. n {
		a[i] = (n - i).str()
	}

	mut gap := n
	for {
		gap = int(f64(gap) / 1.3)
		if gap == 9 || gap == 10 {
			gap = 11
		}
		if gap < 1 {
			gap = 1
		}
		mut swapped := false
		for i in 0 .. n - gap {
			if a[i] > a[i + gap] {
				a[i], a[i + gap] = a[i + gap], a[i]
				swapped = true
			}
		}
		if gap == 1 && !swapped {
			break
		}
	}

	mut bad := 0
	for i in 1 .. n {
		if a[i] < a[i - 1] {
			bad++
		}
	}
	println('${bad} ${a[0]} ${a[n - 1]}')
}
