"""What makes a run fast and incremental, behind the engine: the result cache, the record of the
last run, change selection, parallel workers, the run-wide indexes and progress, and the fixer."""
