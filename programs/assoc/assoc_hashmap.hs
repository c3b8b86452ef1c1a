{-# LANGUAGE BangPatterns #-}
-- assoc, hash-map variant (row haskell-ghc-hashmap): string -> Double hash map
-- from Data.HashMap.Strict (unordered-containers, a third-party package that
-- does not ship with GHC; Debian libghc-unordered-containers-dev), strict
-- ByteString keys. The default Haskell row (assoc.hs) uses Data.Map.Strict.
-- lookup then insert: unordered-containers has no insert that also returns
-- the old value (its alterF also looks up, then inserts).
module Main (main) where

import Data.Bits (shiftR, (.&.))
import qualified Data.ByteString.Char8 as B
import qualified Data.HashMap.Strict as M
import System.Environment (getArgs)

type Table = M.HashMap B.ByteString Double

alphabet :: B.ByteString
alphabet = B.pack "0123456789aBcDeF"

-- base-16 digits of v, least significant digit first
rhex :: Int -> B.ByteString
rhex = B.unfoldr step
  where
    step 0 = Nothing
    step v = Just (B.index alphabet (v .&. 15), v `shiftR` 4)

decimal :: Int -> B.ByteString
decimal = B.pack . show

-- store `set` if the key is new, else add `inc` and count a duplicate
setOrInc :: B.ByteString -> Int -> Int -> Table -> Int -> (Table, Int)
setOrInc k set inc m !c = case M.lookup k m of
  Nothing -> (M.insert k (fromIntegral set) m, c)
  Just x -> (M.insert k (x + fromIntegral inc) m, c + 1)

firstDigit :: Double -> Int
firstDigit d
  | d > 10 = firstDigit (d / 10)
  | otherwise = truncate d

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        (a : _) -> read a
        [] -> 12000000 :: Int
      go !z !m !d1 !d2 !d3
        | z < 1 = (m, d1, d2, d3)
        | otherwise =
            let v2 = n - z
                v3 = 2 * n - z
                (m1, d1') = setOrInc (decimal z) z v2 m d1
                (m2, d2') = setOrInc (decimal v2) v2 v3 m1 d2
                (m3, d3') = setOrInc (rhex v3) v3 z m2 d3
             in go (z - 1) m3 d1' d2' d3'
      (table, dup1, dup2, dup3) = go n M.empty 0 0 0
  putStrLn (unwords (map show [dup1, dup2, dup3]))
  let step (!t, !v, !c) k x = (t + firstDigit x, v + B.length k, c + 1)
      (total, verify, count) = M.foldlWithKey' step (0, 0, 0 :: Int) table
  putStrLn (unwords (map show [total, verify, count]))
