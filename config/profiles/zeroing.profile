# The zeroing comparison to start from (doc/zeroing.md): what clearing
# frames on allocation (__GFP_ZERO) costs the receive path against none,
# whether a background thread wins it back, and which clear method to
# use; the text prints the trade-off of each method against another
# (clear cycles, the rest, Gbit/s) under the table. Replay frames of
# 1500 bytes: with 64 bytes there is little to clear.
zero-policy none,alloc,background
zero-method contig,nt,narrow
strategy bh
bulk on
reps auto:10
warmup 0.3
duration 1
progress rounds
