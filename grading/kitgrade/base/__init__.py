"""Mechanisms under everything: no-link file operations, safe text, say, UsageError.

These import nothing of the grader but each other.
"""
