package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	n := 10000000
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "invalid N:", os.Args[1])
			os.Exit(1)
		}
		n = v
	}

	a := make([]float64, n)
	for i := range a {
		a[i] = float64(n - i)
	}

	gap := n
	for {
		gap = int(float64(gap) / 1.3)
		if gap == 9 || gap == 10 {
			gap = 11
		}
		if gap < 1 {
			gap = 1
		}
		swapped := false
		for i := 0; i < n-gap; i++ {
			if a[i] > a[i+gap] {
				a[i], a[i+gap] = a[i+gap], a[i]
				swapped = true
			}
		}
		if gap == 1 && !swapped {
			break
		}
	}

	bad := 0
	for i := 1; i < n; i++ {
		if a[i] < a[i-1] {
			bad++
		}
	}
	fmt.Printf("%d %d %d\n", bad, int64(a[0]), int64(a[n-1]))
}
