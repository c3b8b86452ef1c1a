% assoc: library(assoc) (AVL trees, shipped with SWI-Prolog), string keys to
% floats. The assoc is threaded through the loop as an accumulator.

:- use_module(library(assoc)).
:- use_module(library(apply)).
:- initialization(main, main).

main :-
    current_prolog_flag(argv, Argv),
    (   Argv = [Arg|_]
    ->  atom_number(Arg, N)
    ;   N = 12000000
    ),
    empty_assoc(Empty),
    loop(N, N, Empty, Map, 0-0-0, Dup1-Dup2-Dup3),
    format("~d ~d ~d~n", [Dup1, Dup2, Dup3]),
    assoc_to_list(Map, Pairs),
    foldl(sum_entry, Pairs, 0-0-0, Total-Verify-Count),
    format("~d ~d ~d~n", [Total, Verify, Count]).

loop(0, _, Map, Map, Dups, Dups) :- !.
loop(Z, N, Map0, Map, Dup10-Dup20-Dup30, Dups) :-
    V2 is N - Z,
    V3 is 2*N - Z,
    number_string(Z, Key1),
    set_or_inc(Key1, Z, V2, Map0, Map1, Dup10, Dup11),
    number_string(V2, Key2),
    set_or_inc(Key2, V2, V3, Map1, Map2, Dup20, Dup21),
    rhex(V3, Key3),
    set_or_inc(Key3, V3, Z, Map2, Map3, Dup30, Dup31),
    Z1 is Z - 1,
    loop(Z1, N, Map3, Map, Dup11-Dup21-Dup31, Dups).

% store Set (as a float) if Key is new, else add Inc and count a duplicate
set_or_inc(Key, Set, Inc, Map0, Map, Dup0, Dup) :-
    (   get_assoc(Key, Map0, Old)
    ->  New is Old + Inc,
        put_assoc(Key, Map0, New, Map),
        Dup is Dup0 + 1
    ;   Value is float(Set),
        put_assoc(Key, Map0, Value, Map),
        Dup = Dup0
    ).

% base-16 digits of V, least significant digit first
rhex(V, String) :-
    rhex_codes(V, Codes),
    string_codes(String, Codes).

rhex_codes(0, []) :- !.
rhex_codes(V, [C|Cs]) :-
    I is V mod 16 + 1,
    string_code(I, "0123456789aBcDeF", C),
    V1 is V // 16,
    rhex_codes(V1, Cs).

first_digit(D, F) :-
    (   D > 10
    ->  D1 is D / 10,
        first_digit(D1, F)
    ;   F is truncate(D)
    ).

sum_entry(Key-Value, Total0-Verify0-Count0, Total-Verify-Count) :-
    first_digit(Value, F),
    Total is Total0 + F,
    string_length(Key, Len),
    Verify is Verify0 + Len,
    Count is Count0 + 1.
