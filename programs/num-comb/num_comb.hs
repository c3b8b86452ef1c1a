{-# LANGUAGE ScopedTypeVariables #-}
-- num-comb: comb sort of a mutable unboxed Double array (STUArray)
module Main (main) where

import Control.Monad (forM_, unless)
import Control.Monad.ST (ST)
import Data.Array.ST (STUArray, newArray_, readArray, runSTUArray, writeArray)
import Data.Array.Unboxed (UArray, (!))
import System.Environment (getArgs)

combSort :: Int -> UArray Int Double
combSort n = runSTUArray $ do
  a <- newArray_ (0, n - 1)
  forM_ [0 .. n - 1] $ \i -> writeArray a i (fromIntegral (n - i))
  let loop gap0 = do
        let g = floor (fromIntegral gap0 / 1.3 :: Double) :: Int
            g' = if g == 9 || g == 10 then 11 else g
            gap = max 1 g'
        swapped <- pass a n gap
        unless (gap == 1 && not swapped) (loop gap)
  loop n
  return a

-- one pass over the array with the given gap; True if anything was swapped
pass :: forall s. STUArray s Int Double -> Int -> Int -> ST s Bool
pass a n gap = go 0 False
  where
    go :: Int -> Bool -> ST s Bool
    go i swapped
      | i >= n - gap = return swapped
      | otherwise = do
          x <- readArray a i
          y <- readArray a (i + gap)
          if x > y
            then do
              writeArray a i y
              writeArray a (i + gap) x
              go (i + 1) True
            else go (i + 1) swapped

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        (s : _) -> read s
        [] -> 10000000 :: Int
      a = combSort n
      bad = length [i | i <- [1 .. n - 1], a ! i < a ! (i - 1)]
  putStrLn (unwords (map show [bad, truncate (a ! 0), truncate (a ! (n - 1))]))
