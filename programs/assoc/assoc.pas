program Assoc;

{$mode objfpc}{$H+}

uses
  SysUtils, Generics.Collections;

type
  TStrFloatMap = specialize TDictionary<AnsiString, Double>;

function RHex(V: Int64): AnsiString;
const
  Digits: array[0..15] of Char = '0123456789aBcDeF';
begin
  Result := '';
  while V > 0 do
  begin
    Result := Result + Digits[V mod 16];
    V := V div 16;
  end;
end;

function FirstDigit(D: Double): Int64;
begin
  while D > 10 do
    D := D / 10;
  Result := Trunc(D);
end;

procedure SetOrInc(Map: TStrFloatMap; const Key: AnsiString; SetV, IncV: Int64;
  var Counter: Int64);
var
  V: Double;
begin
  if Map.TryGetValue(Key, V) then
  begin
    Map.AddOrSetValue(Key, V + IncV);
    Inc(Counter);
  end
  else
    Map.Add(Key, SetV);
end;

var
  N, Z, V2, V3, Dup1, Dup2, Dup3, Total, Verify, Count: Int64;
  Map: TStrFloatMap;
  Pair: specialize TPair<AnsiString, Double>;
begin
  if ParamCount >= 1 then
    N := StrToInt64(ParamStr(1))
  else
    N := 12000000;

  Map := TStrFloatMap.Create;
  Dup1 := 0;
  Dup2 := 0;
  Dup3 := 0;
  for Z := N downto 1 do
  begin
    V2 := N - Z;
    V3 := 2 * N - Z;
    SetOrInc(Map, IntToStr(Z), Z, V2, Dup1);
    SetOrInc(Map, IntToStr(V2), V2, V3, Dup2);
    SetOrInc(Map, RHex(V3), V3, Z, Dup3);
  end;
  WriteLn(Dup1, ' ', Dup2, ' ', Dup3);

  Total := 0;
  Verify := 0;
  Count := 0;
  for Pair in Map do
  begin
    Total := Total + FirstDigit(Pair.Value);
    Verify := Verify + Length(Pair.Key);
    Inc(Count);
  end;
  WriteLn(Total, ' ', Verify, ' ', Count);
  Map.Free;
end.
