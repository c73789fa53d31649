# What dpdk-testpmd --forward-mode=rxonly does: rx_burst, then free.
# No per-stream work, so the refill path is all there is to compare.
consumer none
bulk on
strategy all
no-latency
