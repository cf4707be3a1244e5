"""The front ends: the ``citations`` command, the pytest plugin and the output formats. A front end
parses its arguments, asks for a run, and renders what it reports."""
