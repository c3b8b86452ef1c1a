;;;; assoc: string -> double-float hash table (make-hash-table :test 'equal)

(defconstant +alphabet+ "0123456789aBcDeF")

(defun rhex (v)
  "Base-16 digits of V, least significant digit first."
  (with-output-to-string (s)
    (loop while (> v 0)
          do (write-char (char +alphabet+ (logand v 15)) s)
             (setf v (ash v -4)))))

(defun first-digit (d)
  (loop while (> d 10) do (setf d (/ d 10)))
  (values (truncate d)))

(defun set-or-inc (table key set inc)
  "Store SET if KEY is new, else add INC. Returns 1 for a duplicate, else 0."
  (multiple-value-bind (value found) (gethash key table)
    (cond (found (setf (gethash key table) (+ value inc)) 1)
          (t (setf (gethash key table) (float set 1d0)) 0))))

(defun main ()
  (let* ((arg (second sb-ext:*posix-argv*))
         (n (if arg (parse-integer arg) 12000000))
         (table (make-hash-table :test 'equal))
         (dup1 0) (dup2 0) (dup3 0))
    (loop for z from n downto 1
          for v2 = (- n z)
          for v3 = (- (* 2 n) z)
          do (incf dup1 (set-or-inc table (princ-to-string z) z v2))
             (incf dup2 (set-or-inc table (princ-to-string v2) v2 v3))
             (incf dup3 (set-or-inc table (rhex v3) v3 z)))
    (format t "~D ~D ~D~%" dup1 dup2 dup3)
    (let ((total 0) (verify 0) (count 0))
      (maphash (lambda (key value)
                 (incf total (first-digit value))
                 (incf verify (length key))
                 (incf count))
               table)
      (format t "~D ~D ~D~%" total verify count))))

(main)
