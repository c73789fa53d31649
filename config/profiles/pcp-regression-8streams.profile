# The 2017 pcp regression's experiment (netdev thread "Page allocator
# order-0 optimizations merged", March 2017): 8 TCP streams, the driver's own
# recycling off, frees from process context on other CPUs, one page at a
# time and in bulk. Use with traffic of 8 streams (rxrefill-gen -s 8, or a
# second host).
strategy zone,irqsave,bh
bulk both
consumer other-cpu
consumers 2
consumer-depth 1024
warmup 1
duration 10
# Six paired rounds: the fewest whose sign-flip test can reach p < 0.05.
reps 6
