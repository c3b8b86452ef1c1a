% num-comb: comb sort of an array of floats. The array is a compound term of
% arity N (SWI-Prolog has unbounded arity), read with arg/3 and updated in
% place with setarg/3, the usual SWI-Prolog mutable array.

:- initialization(main, main).

main :-
    current_prolog_flag(argv, Argv),
    (   Argv = [Arg|_]
    ->  atom_number(Arg, N)
    ;   N = 10000000
    ),
    functor(A, a, N),
    fill(1, N, A),
    comb(N, N, A),
    count_bad(2, N, A, 0, Bad),
    arg(1, A, First),
    arg(N, A, Last),
    F is truncate(First),
    L is truncate(Last),
    format("~d ~d ~d~n", [Bad, F, L]).

% a[i] = N - i for i = 0 .. N-1 (argument I = i + 1)
fill(I, N, A) :-
    (   I > N
    ->  true
    ;   V is float(N - I + 1),
        setarg(I, A, V),
        I1 is I + 1,
        fill(I1, N, A)
    ).

comb(Gap0, N, A) :-
    Gap1 is floor(Gap0 / 1.3),
    (   ( Gap1 =:= 9 ; Gap1 =:= 10 )
    ->  Gap2 = 11
    ;   Gap2 = Gap1
    ),
    Gap is max(Gap2, 1),
    Last is N - Gap,
    pass(1, Last, Gap, A, false, Swapped),
    (   Gap =:= 1, Swapped == false
    ->  true
    ;   comb(Gap, N, A)
    ).

pass(I, Last, Gap, A, Swapped0, Swapped) :-
    (   I > Last
    ->  Swapped = Swapped0
    ;   J is I + Gap,
        arg(I, A, X),
        arg(J, A, Y),
        (   X > Y
        ->  setarg(I, A, Y),
            setarg(J, A, X),
            Swapped1 = true
        ;   Swapped1 = Swapped0
        ),
        I1 is I + 1,
        pass(I1, Last, Gap, A, Swapped1, Swapped)
    ).

count_bad(I, N, A, Bad0, Bad) :-
    (   I > N
    ->  Bad = Bad0
    ;   I0 is I - 1,
        arg(I, A, X),
        arg(I0, A, Y),
        (   X < Y
        ->  Bad1 is Bad0 + 1
        ;   Bad1 = Bad0
        ),
        I1 is I + 1,
        count_bad(I1, N, A, Bad1, Bad)
    ).
