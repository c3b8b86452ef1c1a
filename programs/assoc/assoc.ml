(* assoc: string -> float hash table (Hashtbl) *)

let alphabet = "0123456789aBcDeF"

(* base-16 digits of v, least significant digit first *)
let rhex v =
  let b = Buffer.create 16 in
  let v = ref v in
  while !v > 0 do
    Buffer.add_char b alphabet.[!v land 15];
    v := !v lsr 4
  done;
  Buffer.contents b

let rec first_digit d =
  if d > 10.0 then first_digit (d /. 10.0) else int_of_float d

let () =
  let n =
    if Array.length Sys.argv > 1 then int_of_string Sys.argv.(1) else 12_000_000
  in
  let h : (string, float) Hashtbl.t = Hashtbl.create 16 in
  let dup1 = ref 0 and dup2 = ref 0 and dup3 = ref 0 in
  let set_or_inc k set inc counter =
    match Hashtbl.find_opt h k with
    | None -> Hashtbl.add h k (float_of_int set)
    | Some x ->
        Hashtbl.replace h k (x +. float_of_int inc);
        incr counter
  in
  for z = n downto 1 do
    let v2 = n - z and v3 = (2 * n) - z in
    set_or_inc (string_of_int z) z v2 dup1;
    set_or_inc (string_of_int v2) v2 v3 dup2;
    set_or_inc (rhex v3) v3 z dup3
  done;
  Printf.printf "%d %d %d\n" !dup1 !dup2 !dup3;
  let total = ref 0 and verify = ref 0 and count = ref 0 in
  Hashtbl.iter
    (fun k v ->
      total := !total + first_digit v;
      verify := !verify + String.length k;
      incr count)
    h;
  Printf.printf "%d %d %d\n" !total !verify !count
