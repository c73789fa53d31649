# Finite replay for exact accounting: each queue's capture three times,
# every packet received or dropped with a cause. Needs --replay FILES.
loops 3
reps 1
bulk both
strategy all
