"""The lab: its rubric and hidden cases, what its checker says of it, the student folders, the builds and the code a build may not run before main."""
