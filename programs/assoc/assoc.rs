use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::env;

fn rhex(mut v: i64) -> String {
    const DIGITS: &[u8] = b"0123456789aBcDeF";
    let mut s = String::new();
    while v > 0 {
        s.push(DIGITS[(v % 16) as usize] as char);
        v /= 16;
    }
    s
}

fn first_digit(mut d: f64) -> i64 {
    while d > 10.0 {
        d /= 10.0;
    }
    d as i64
}

fn set_or_inc(m: &mut HashMap<String, f64>, key: String, set: i64, inc: i64, counter: &mut i64) {
    match m.entry(key) {
        Entry::Occupied(mut e) => {
            *e.get_mut() += inc as f64;
            *counter += 1;
        }
        Entry::Vacant(e) => {
            e.insert(set as f64);
        }
    }
}

fn main() {
    let n: i64 = env::args()
        .nth(1)
        .map(|s| s.parse().expect("N must be an integer"))
        .unwrap_or(12_000_000);

    let mut m: HashMap<String, f64> = HashMap::new();
    let (mut dup1, mut dup2, mut dup3) = (0i64, 0i64, 0i64);
    for z in (1..=n).rev() {
        let v2 = n - z;
        let v3 = 2 * n - z;
        set_or_inc(&mut m, z.to_string(), z, v2, &mut dup1);
        set_or_inc(&mut m, v2.to_string(), v2, v3, &mut dup2);
        set_or_inc(&mut m, rhex(v3), v3, z, &mut dup3);
    }
    println!("{} {} {}", dup1, dup2, dup3);

    let (mut total, mut verify, mut count) = (0i64, 0i64, 0i64);
    for (key, &value) in &m {
        total += first_digit(value);
        verify += key.len() as i64;
        count += 1;
    }
    println!("{} {} {}", total, verify, count);
}
