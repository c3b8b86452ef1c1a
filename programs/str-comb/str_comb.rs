use std::env;

fn main() {
    let n: usize = env::args()
        .nth(1)
        .map(|s| s.parse().expect("N must be an integer"))
        .unwrap_or(10_000_000);

    let mut a: Vec<String> = (0..n).map(|i| (n - i).to_string()).collect();

    let mut gap = n;
    loop {
        gap = (gap as f64 / 1.3) as usize;
        if gap == 9 || gap == 10 {
            gap = 11;
        }
        if gap < 1 {
            gap = 1;
        }
        let mut swapped = false;
        for i in 0..n.saturating_sub(gap) {
            if a[i] > a[i + gap] {
                a.swap(i, i + gap);
                swapped = true;
            }
        }
        if gap == 1 && !swapped {
            break;
        }
    }

    let bad = (1..n).filter(|&i| a[i] < a[i - 1]).count();
    println!("{} {} {}", bad, a[0], a[n - 1]);
}
