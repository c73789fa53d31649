# Zeroed frames (the __GFP_ZERO question): a background thread keeps
# pre-zeroed frames ready; compare with --zero-policy alloc and none.
zero-policy background
zero-method auto
strategy bh,recycle
bulk on
