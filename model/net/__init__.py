"""The network side of the machine: qdiscs, the transmit path (dequeuer role), device, receive path."""
