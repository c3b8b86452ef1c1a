program StrComb;

{$mode objfpc}{$H+}

uses
  SysUtils;

var
  N, I, Gap, Bad: Int64;
  A: array of AnsiString;
  T: AnsiString;
  Swapped: Boolean;
begin
  if ParamCount >= 1 then
    N := StrToInt64(ParamStr(1))
  else
    N := 10000000;

  SetLength(A, N);
  for I := 0 to N - 1 do
    A[I] := IntToStr(N - I);

  Gap := N;
  repeat
    Gap := Trunc(Gap / 1.3);
    if (Gap = 9) or (Gap = 10) then
      Gap := 11;
    if Gap < 1 then
      Gap := 1;
    Swapped := False;
    for I := 0 to N - Gap - 1 do
      if A[I] > A[I + Gap] then
      begin
        T := A[I];
        A[I] := A[I + Gap];
        A[I + Gap] := T;
        Swapped := True;
      end;
  until (Gap = 1) and not Swapped;

  Bad := 0;
  for I := 1 to N - 1 do
    if A[I] < A[I - 1] then
      Inc(Bad);
  WriteLn(Bad, ' ', A[0], ' ', A[N - 1]);
end.
