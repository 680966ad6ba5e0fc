"""Workloads: the programs tasks run (iperf 2.0.2, CPU hogs, yielders, sleepers, producer/consumer)."""
