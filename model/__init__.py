"""schedlab's simulation model: one discrete-event machine (CPUs, tasks, schedulers, network).

Pure Python + numpy. Never imports Qt, never reads the wall clock, never starts threads.
"""
