#lang racket/base
;; assoc: string -> flonum mutable hash table (make-hash, equal?-based)

(define alphabet "0123456789aBcDeF")

;; base-16 digits of v, least significant digit first
(define (rhex v)
  (let loop ([v v] [digits '()])
    (if (zero? v)
        (list->string (reverse digits))
        (loop (quotient v 16) (cons (string-ref alphabet (remainder v 16)) digits)))))

(define (first-digit d)
  (if (> d 10)
      (first-digit (/ d 10))
      (inexact->exact (truncate d))))

(define n
  (let ([args (current-command-line-arguments)])
    (if (> (vector-length args) 0)
        (string->number (vector-ref args 0))
        12000000)))

(define table (make-hash))

;; store set if k is new, else add inc; returns 1 for a duplicate, else 0
(define (set-or-inc! k set inc)
  (define old (hash-ref table k #f))
  (cond
    [old (hash-set! table k (+ old inc)) 1]
    [else (hash-set! table k (exact->inexact set)) 0]))

(define-values (dup1 dup2 dup3)
  (for/fold ([dup1 0] [dup2 0] [dup3 0])
            ([z (in-range n 0 -1)])
    (define v2 (- n z))
    (define v3 (- (* 2 n) z))
    (values (+ dup1 (set-or-inc! (number->string z) z v2))
            (+ dup2 (set-or-inc! (number->string v2) v2 v3))
            (+ dup3 (set-or-inc! (rhex v3) v3 z)))))
(printf "~a ~a ~a\n" dup1 dup2 dup3)

(define-values (total verify count)
  (for/fold ([total 0] [verify 0] [count 0])
            ([(k v) (in-hash table)])
    (values (+ total (first-digit v))
            (+ verify (string-length k))
            (+ count 1))))
(printf "~a ~a ~a\n" total verify count)
