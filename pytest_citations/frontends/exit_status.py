"""The exit status of every ``citations`` command: 0 when no error was found, 1 when one was, 2 for
a usage or settings error or an internal error in a rule (C006), so that a file the checker could
not fully check never passes; 141 when standard output was closed by its reader."""

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_CLOSED_PIPE = 128 + 13  # 128 + SIGPIPE, as a shell reports a program the signal ended
