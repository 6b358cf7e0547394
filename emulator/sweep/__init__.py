"""`rocelab sweep`: many runs of one scenario over seeds and grid points, locally or on a Dask cluster
(plan.py: what runs; worker.py: one run; execute.py: where and resuming; results.py: sweep.csv and plots)."""
