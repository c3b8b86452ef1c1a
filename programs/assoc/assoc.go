package main

import (
	"fmt"
	"os"
	"strconv"
)

const hexDigits = "0123456789aBcDeF"

// rhex returns the base-16 digits of v, least significant digit first.
func rhex(v int) string {
	buf := make([]byte, 0, 16)
	for v > 0 {
		buf = append(buf, hexDigits[v%16])
		v /= 16
	}
	return string(buf)
}

func firstDigit(d float64) int {
	for d > 10 {
		d /= 10
	}
	return int(d)
}

func setOrInc(m map[string]float64, key string, set, inc int, counter *int) {
	if v, ok := m[key]; ok {
		m[key] = v + float64(inc)
		*counter++
	} else {
		m[key] = float64(set)
	}
}

func main() {
	n := 12000000
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "invalid N:", os.Args[1])
			os.Exit(1)
		}
		n = v
	}

	m := make(map[string]float64)
	dup1, dup2, dup3 := 0, 0, 0
	for z := n; z > 0; z-- {
		v2 := n - z
		v3 := 2*n - z
		setOrInc(m, strconv.Itoa(z), z, v2, &dup1)
		setOrInc(m, strconv.Itoa(v2), v2, v3, &dup2)
		setOrInc(m, rhex(v3), v3, z, &dup3)
	}
	fmt.Printf("%d %d %d\n", dup1, dup2, dup3)

	total, verify, count := 0, 0, 0
	for k, v := range m {
		total += firstDigit(v)
		verify += len(k)
		count++
	}
	fmt.Printf("%d %d %d\n", total, verify, count)
}
