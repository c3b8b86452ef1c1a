--  assoc: Ada.Containers.Indefinite_Hashed_Maps (String -> Long_Float),
--  the standard library's hash map for String keys.
with Ada.Command_Line;
with Ada.Containers.Indefinite_Hashed_Maps;
with Ada.Strings.Fixed;
with Ada.Strings.Hash;
with Ada.Text_IO;

procedure Assoc is
   package Maps is new Ada.Containers.Indefinite_Hashed_Maps
     (Key_Type        => String,
      Element_Type    => Long_Float,
      Hash            => Ada.Strings.Hash,
      Equivalent_Keys => "=");

   --  Integer'Image puts a blank before a non-negative number
   function Decimal (V : Long_Long_Integer) return String is
     (Ada.Strings.Fixed.Trim (Long_Long_Integer'Image (V), Ada.Strings.Left));

   --  base-16 digits of V, least significant digit first
   function Rhex (V : Long_Long_Integer) return String is
      Hex : constant String := "0123456789aBcDeF";
      Buf : String (1 .. 16);
      Len : Natural := 0;
      X   : Long_Long_Integer := V;
   begin
      while X > 0 loop
         Len := Len + 1;
         Buf (Len) := Hex (Integer (X mod 16) + 1);
         X := X / 16;
      end loop;
      return Buf (1 .. Len);
   end Rhex;

   function First_Digit (Value : Long_Float) return Long_Long_Integer is
      D : Long_Float := Value;
   begin
      while D > 10.0 loop
         D := D / 10.0;
      end loop;
      return Long_Long_Integer (Long_Float'Truncation (D));
   end First_Digit;

   M : Maps.Map;

   --  Insert with Position/Inserted is the map's own get-or-insert: one
   --  lookup, and it says whether the key was there.
   procedure Set_Or_Inc
     (Key : String; Set, Inc : Long_Long_Integer; Counter : in out Long_Long_Integer)
   is
      Position : Maps.Cursor;
      Inserted : Boolean;
   begin
      M.Insert (Key, Long_Float (Set), Position, Inserted);
      if not Inserted then
         M (Position) := M (Position) + Long_Float (Inc);
         Counter := Counter + 1;
      end if;
   end Set_Or_Inc;

   N : Long_Long_Integer := 12_000_000;
   Dup1, Dup2, Dup3 : Long_Long_Integer := 0;
   Total, Verify, Count : Long_Long_Integer := 0;
   V2, V3 : Long_Long_Integer;
begin
   if Ada.Command_Line.Argument_Count > 0 then
      N := Long_Long_Integer'Value (Ada.Command_Line.Argument (1));
   end if;

   for Z in reverse 1 .. N loop
      V2 := N - Z;
      V3 := 2 * N - Z;
      Set_Or_Inc (Decimal (Z), Z, V2, Dup1);
      Set_Or_Inc (Decimal (V2), V2, V3, Dup2);
      Set_Or_Inc (Rhex (V3), V3, Z, Dup3);
   end loop;
   Ada.Text_IO.Put_Line (Decimal (Dup1) & " " & Decimal (Dup2) & " " & Decimal (Dup3));

   for C in M.Iterate loop
      Total := Total + First_Digit (Maps.Element (C));
      Verify := Verify + Maps.Key (C)'Length;
      Count := Count + 1;
   end loop;
   Ada.Text_IO.Put_Line (Decimal (Total) & " " & Decimal (Verify) & " " & Decimal (Count));
end Assoc;
