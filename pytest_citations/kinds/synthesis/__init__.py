"""A research run's synthesis: the references it makes to the run's citations, and their rules."""
