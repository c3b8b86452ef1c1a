(set! *warn-on-reflection* true)

(def ^String hex-digits "0123456789aBcDeF")

(defn rhex
  "Base-16 digits of v, least significant digit first."
  ^String [^long v]
  (let [sb (StringBuilder.)]
    (loop [v v]
      (when (pos? v)
        (.append sb (.charAt hex-digits (int (rem v 16))))
        (recur (quot v 16))))
    (.toString sb)))

(defn first-digit ^long [^double d]
  (loop [d d]
    (if (> d 10.0)
      (recur (/ d 10.0))
      (long d))))

(defn -main [& args]
  (let [n (if-let [arg (first args)] (Long/parseLong arg) 12000000)
        [m dup1 dup2 dup3]
        (loop [z n, m (transient {}), dup1 0, dup2 0, dup3 0]
          (if (pos? z)
            (let [v2 (- n z)
                  v3 (- (* 2 n) z)
                  k1 (str z)
                  old1 (get m k1)
                  m (assoc! m k1 (if old1 (+ (double old1) v2) (double z)))
                  k2 (str v2)
                  old2 (get m k2)
                  m (assoc! m k2 (if old2 (+ (double old2) v3) (double v2)))
                  k3 (rhex v3)
                  old3 (get m k3)
                  m (assoc! m k3 (if old3 (+ (double old3) z) (double v3)))]
              (recur (dec z) m
                     (if old1 (inc dup1) dup1)
                     (if old2 (inc dup2) dup2)
                     (if old3 (inc dup3) dup3)))
            [(persistent! m) dup1 dup2 dup3]))]
    (println dup1 dup2 dup3)
    (let [[total verify cnt]
          (reduce-kv (fn [[total verify cnt] ^String k v]
                       [(+ total (first-digit v)) (+ verify (.length k)) (inc cnt)])
                     [0 0 0]
                     m)]
      (println total verify cnt))))

(apply -main *command-line-args*)
