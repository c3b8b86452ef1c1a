# num-comb: comb sort of a numeric (double) vector

args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) > 0) as.integer(args[1]) else 10000000L

a <- as.numeric(n:1)  # a[i] = N - i for i = 0 .. N-1 (R indexes from 1)

gap <- n
repeat {
  gap <- floor(gap / 1.3)
  if (gap == 9 || gap == 10) gap <- 11
  if (gap < 1) gap <- 1
  swapped <- FALSE
  for (i in seq_len(n - gap)) {
    j <- i + gap
    if (a[i] > a[j]) {
      t <- a[i]
      a[i] <- a[j]
      a[j] <- t
      swapped <- TRUE
    }
  }
  if (gap == 1 && !swapped) break
}

bad <- sum(a[-1] < a[-n])
cat(sprintf("%d %.0f %.0f\n", bad, a[1], a[n]))
