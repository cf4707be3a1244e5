"""URL citations (citations-jsonl-v1.md): ``citations.jsonl`` records, URL normalization (the spec's
and the WHATWG profile), their rules, and the utilization of a research run (``citations report``)."""
