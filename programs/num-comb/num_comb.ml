(* num-comb: comb sort of a float array (Array, unboxed float array) *)

let () =
  let n =
    if Array.length Sys.argv > 1 then int_of_string Sys.argv.(1) else 10_000_000
  in
  let a = Array.init n (fun i -> float_of_int (n - i)) in
  let gap = ref n in
  let finished = ref false in
  while not !finished do
    gap := int_of_float (Float.floor (float_of_int !gap /. 1.3));
    if !gap = 9 || !gap = 10 then gap := 11;
    if !gap < 1 then gap := 1;
    let g = !gap in
    let swapped = ref false in
    for i = 0 to n - g - 1 do
      if a.(i) > a.(i + g) then begin
        let t = a.(i) in
        a.(i) <- a.(i + g);
        a.(i + g) <- t;
        swapped := true
      end
    done;
    if g = 1 && not !swapped then finished := true
  done;
  let bad = ref 0 in
  for i = 1 to n - 1 do
    if a.(i) < a.(i - 1) then incr bad
  done;
  Printf.printf "%d %d %d\n" !bad (int_of_float a.(0)) (int_of_float a.(n - 1))
