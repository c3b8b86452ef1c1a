import os

const hex_digits = '0123456789aBcDeF'

// rhex returns the base-16 digits of v, least significant digit first.
fn rhex(v i64) string {
	mut x := v
	mut buf := []u8{cap: 16}
	for x > 0 {
		buf << hex_digits[int(x % 16)]
		x /= 16
	}
	return buf.bytestr()
}

fn first_digit(d f64) i64 {
	mut x := d
	for x > 10 {
		x /= 10
	}
	return i64(x)
}

// set_or_inc returns 1 when the key was already there (a duplicate), 0 otherwise.
fn set_or_inc(mut m map[string]f64, key string, set i64, inc i64) i64 {
	if key in m {
		m[key] += f64(inc)
		return 1
	}
	m[key] = f64(set)
	return 0
}

fn main() {
	n := if os.args.len > 1 { os.args[1].i64() } else { i64(12000000) }
	mut m := map[string]f64{}
	mut dup1 := i64(0)
	mut dup2 := i64(0)
	mut dup3 := i64(0)
	for z := n; z > 0; z-- {
		v2 := n - z
		v3 := 2 * n - z
		dup1 += set_or_inc(mut m, z.str(), z, v2)
		dup2 += set_or_inc(mut m, v2.str(), v2, v3)
		dup3 += set_or_inc(mut m, rhex(v3), v3, z)
	}
	println('${dup1} ${dup2} ${dup3}')

	mut total := i64(0)
	mut verify := i64(0)
	mut count := i64(0)
	for key, value in m {
		total += first_digit(value)
		verify += key.len
		count++
	}
	println('${total} ${verify} ${count}')
}
