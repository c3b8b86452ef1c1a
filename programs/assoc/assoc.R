# assoc: an environment (new.env(hash = TRUE)), R's built-in hash table, from
# string keys to doubles. (A named vector or list is no map at this size: each
# lookup by name scans the names, and each new element copies the vector.)

HEX <- strsplit("0123456789aBcDeF", "")[[1]]

# base-16 digits of v, least significant digit first
rhex <- function(v) {
  digits <- character(0)
  while (v > 0) {
    digits <- c(digits, HEX[v %% 16L + 1L])
    v <- v %/% 16L
  }
  paste(digits, collapse = "")
}

# while d > 10: d = d / 10 (in floating point), then truncate; vectorised
first_digit <- function(d) {
  while (any(big <- d > 10)) d[big] <- d[big] / 10
  trunc(d)
}

args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) > 0) as.integer(args[1]) else 12000000L

m <- new.env(hash = TRUE)
dup1 <- dup2 <- dup3 <- 0L
for (z in n:1) {
  v2 <- n - z
  v3 <- 2L * n - z

  key <- as.character(z)
  old <- m[[key]]
  if (is.null(old)) {
    m[[key]] <- as.numeric(z)
  } else {
    m[[key]] <- old + v2
    dup1 <- dup1 + 1L
  }

  key <- as.character(v2)
  old <- m[[key]]
  if (is.null(old)) {
    m[[key]] <- as.numeric(v2)
  } else {
    m[[key]] <- old + v3
    dup2 <- dup2 + 1L
  }

  key <- rhex(v3)
  old <- m[[key]]
  if (is.null(old)) {
    m[[key]] <- as.numeric(v3)
  } else {
    m[[key]] <- old + z
    dup3 <- dup3 + 1L
  }
}
cat(sprintf("%d %d %d\n", dup1, dup2, dup3))

entries <- as.list(m, all.names = TRUE)
total <- sum(first_digit(unlist(entries, use.names = FALSE)))
verify <- sum(nchar(names(entries), type = "bytes"))
count <- length(entries)
cat(sprintf("%.0f %.0f %d\n", total, verify, count))
