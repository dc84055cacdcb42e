"""The harness run: its runs on the hidden cases, the checker's verdicts, verified timing (keys, pairs with the reference, GPU records, the checks of a timed run) and the speed lost to load."""
