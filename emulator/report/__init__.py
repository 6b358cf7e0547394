"""What a run leaves behind, whatever engine ran it: summary.json, CSV time series, PNG plots, staged so that an
interrupted run never leaves a half-written file."""
